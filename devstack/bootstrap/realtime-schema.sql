-- The `supabase_realtime` publication and the `realtime` schema (Realtime Authorization and
-- broadcast from the database). Re-runnable, like every part after it: database.ts runs these
-- parts again on an older database that lacks them (a persistent .devstack/ data dir).

do $$
begin
  if not exists (select 1 from pg_publication where pubname = 'supabase_realtime') then
    create publication supabase_realtime;
  end if;
end
$$;

-- Realtime Authorization and broadcast from the database, as the Realtime server's
-- migrations create them. Hosted partitions realtime.messages by day and drops partitions
-- after 3 days; here it is one plain table and the devstack deletes rows older than 3 days.
create schema if not exists realtime;
grant usage on schema realtime to anon, authenticated, service_role, supabase_realtime_admin;

create table if not exists realtime.messages (
  topic text not null,
  extension text not null,
  payload jsonb,
  event text,
  private boolean default false,
  updated_at timestamp without time zone default now() not null,
  inserted_at timestamp without time zone default now() not null,
  id uuid default gen_random_uuid() not null,
  constraint messages_pkey primary key (id, inserted_at)
);
create index if not exists messages_inserted_at_topic_index
  on realtime.messages (inserted_at desc, topic)
  where extension = 'broadcast' and private is true;
alter table realtime.messages owner to supabase_realtime_admin;
-- No policies: anon and authenticated see and write nothing until a project adds some.
alter table realtime.messages enable row level security;
grant select, insert, update on realtime.messages to anon, authenticated, service_role;

create or replace function realtime.topic() returns text
language sql stable as $$
select nullif(current_setting('realtime.topic', true), '')::text;
$$;

create or replace function realtime.send(payload jsonb, event text, topic text, private boolean default true)
returns void
language plpgsql as $$
declare
  generated_id uuid;
  final_payload jsonb;
begin
  begin
    generated_id := gen_random_uuid();
    if payload ? 'id' then
      final_payload := payload;
    else
      final_payload := jsonb_set(payload, '{id}', to_jsonb(generated_id));
    end if;
    execute format('SET LOCAL realtime.topic TO %L', topic);
    insert into realtime.messages (id, payload, event, topic, private, extension)
    values (generated_id, final_payload, event, topic, private, 'broadcast');
  exception
    when others then
      raise warning 'ErrorSendingBroadcastMessage: %', sqlerrm;
  end;
end;
$$;

create or replace function realtime.broadcast_changes(
  topic_name text, event_name text, operation text, table_name text, table_schema text,
  new record, old record, level text default 'ROW'::text
) returns void
language plpgsql as $$
declare
  row_data jsonb := '{}'::jsonb;
begin
  if level = 'STATEMENT' then
    raise exception 'function can only be triggered for each row, not for each statement';
  end if;
  if operation = 'INSERT' or operation = 'UPDATE' or operation = 'DELETE' then
    row_data := jsonb_build_object('old_record', old, 'record', new, 'operation', operation,
                                   'table', table_name, 'schema', table_schema);
    perform realtime.send(row_data, event_name, topic_name);
  else
    raise exception 'Unexpected operation type: %', operation;
  end if;
exception
  when others then
    raise exception 'Failed to process the row: %', sqlerrm;
end;
$$;

alter function realtime.topic() owner to supabase_realtime_admin;
alter function realtime.send(jsonb, text, text, boolean) owner to supabase_realtime_admin;
alter function realtime.broadcast_changes(text, text, text, text, text, record, record, text)
  owner to supabase_realtime_admin;
grant all on all functions in schema realtime to supabase_realtime_admin;

-- Hosted's `postgres` (not a superuser there) gets the rest of the table; a stock cluster may
-- have no role of that name.
do $$
begin
  if exists (select 1 from pg_roles where rolname = 'postgres') then
    grant usage on schema realtime to postgres;
    grant all on realtime.messages to postgres;
    grant all on all functions in schema realtime to postgres;
  end if;
  if exists (select 1 from pg_roles where rolname = 'dashboard_user') then
    grant all on all functions in schema realtime to dashboard_user;
  end if;
end
$$;
