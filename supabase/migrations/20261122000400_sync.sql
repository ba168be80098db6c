-- The two sync functions of SYNC.md. Both run as the caller (SECURITY INVOKER) so RLS stays
-- the only gate, and both work from `sync_registry`: one row per synced table naming how its
-- rows reach a user and which columns a client may write. Identifiers in dynamic SQL come
-- only from that registry (and %I), values only from bound parameters or typed literals.

create table public.sync_registry (
  name text primary key,
  -- How rows reach a user: 'list' = through the caller's membership of scope_column's list;
  -- 'peer' = profiles of the caller and of everyone sharing a live list with them.
  scope text not null check (scope in ('list', 'peer')),
  scope_column text not null,
  insert_columns text[] not null,
  patch_columns text[] not null,
  deletable boolean not null,
  -- Purge order: children (higher) before parents.
  depth integer not null
);
alter table public.sync_registry enable row level security;
create policy "sync_registry: readable by all" on public.sync_registry for select using (true);
revoke insert, update, delete, truncate on public.sync_registry from anon, authenticated;

insert into public.sync_registry values
  ('profiles', 'peer', 'id', '{}', '{display_name,avatar_path}', false, 0),
  ('lists', 'list', 'id', '{name,color}', '{name,color}', true, 1),
  ('memberships', 'list', 'list_id', '{list_id,user_id,role}', '{role}', true, 2),
  ('tasks', 'list', 'list_id',
   '{list_id,title,notes,status,priority,due_on,assignee_id,position}',
   '{title,notes,status,priority,due_on,assignee_id,position}', true, 2),
  ('comments', 'list', 'list_id', '{task_id,list_id,body}', '{body}', true, 3),
  ('attachments', 'list', 'list_id',
   '{task_id,list_id,object_path,file_name,mime_type,size_bytes,width,height}',
   '{file_name}', true, 3);

-- The version of the sync contract (tables, columns, rules). A client that knows an older
-- one must update (APP_OUTDATED).
create function public.sync_schema_version() returns integer
language sql immutable as $$ select 1 $$;

-- One row per device: the highest mutation seq applied, so replays are skipped.
create table public.sync_clients (
  id uuid primary key,
  user_id uuid not null default auth.uid() references auth.users (id) on delete cascade,
  last_seq bigint not null default 0 check (last_seq >= 0),
  created_at timestamptz not null default now(),
  last_push_at timestamptz
);
alter table public.sync_clients enable row level security;
create policy "sync_clients: own" on public.sync_clients for all to authenticated
  using (user_id = (select auth.uid())) with check (user_id = (select auth.uid()));

-- Mutations the server refused, so that a replay after a lost response answers the same.
create table public.sync_rejections (
  client_id uuid not null references public.sync_clients (id) on delete cascade,
  seq bigint not null,
  user_id uuid not null default auth.uid(),
  code text not null,
  message text not null,
  created_at timestamptz not null default now(),
  primary key (client_id, seq)
);
alter table public.sync_rejections enable row level security;
create policy "sync_rejections: own" on public.sync_rejections for all to authenticated
  using (user_id = (select auth.uid())) with check (user_id = (select auth.uid()));

-- Highest sync_xid of any purged tombstone: an older cursor may have missed one.
create table public.sync_state (
  singleton boolean primary key default true check (singleton),
  purged_xid xid8 not null default '0'
);
insert into public.sync_state default values;
alter table public.sync_state enable row level security;
create policy "sync_state: readable by all" on public.sync_state for select using (true);
revoke insert, update, delete, truncate on public.sync_state from anon, authenticated;

-- ---------------------------------------------------------------------------------------
-- sync_push
-- ---------------------------------------------------------------------------------------

-- Drops the top-level keys whose value is null (nested rows keep their nulls).
create function private.sync_compact(obj jsonb) returns jsonb
language sql immutable set search_path = '' as $$
  select coalesce(jsonb_object_agg(e.key, e.value), '{}')
  from jsonb_each(obj) e
  where e.value <> 'null'::jsonb
$$;

-- The caller-visible copy of a row, as sync delivers it (internal columns removed).
create function private.sync_row(tbl text, row_id uuid) returns jsonb
language plpgsql stable set search_path = '' as $$
declare
  result jsonb;
begin
  if not exists (select 1 from public.sync_registry where name = tbl) then
    return null;
  end if;
  execute format('select to_jsonb(t) - ''sync_xid'' - ''granted_xid'' from public.%I t where t.id = $1', tbl)
    into result using row_id;
  return result;
end
$$;

-- Checks a mutation's data: only writable columns, and JSON types that fit the column.
create function private.sync_check_columns(tbl text, data jsonb, allowed text[]) returns text[]
language plpgsql stable set search_path = '' as $$
declare
  k text;
  expected text;
  got text;
  cols text[] := '{}';
begin
  if jsonb_typeof(data) is distinct from 'object' then
    raise exception 'data must be a JSON object' using errcode = '22023';
  end if;
  for k in select jsonb_object_keys(data) loop
    if k = 'id' then
      continue;
    end if;
    if not k = any (allowed) then
      raise exception 'column "%" of % is not writable', left(k, 64), tbl
        using errcode = '42703', column = left(k, 64);
    end if;
    select case ty.typcategory when 'N' then 'number' when 'B' then 'boolean' else 'string' end
      into expected
      from pg_catalog.pg_attribute a
      join pg_catalog.pg_type ty on ty.oid = a.atttypid
      where a.attrelid = format('public.%I', tbl)::regclass and a.attname = k;
    got := jsonb_typeof(data -> k);
    if got <> 'null' and got <> expected then
      raise exception 'column "%" of % takes a %, not a %', k, tbl, expected, got
        using errcode = '42804', column = k;
    end if;
    cols := cols || k;
  end loop;
  return cols;
end
$$;

-- Raises the reason an UPDATE of one row touched nothing.
create function private.sync_explain_miss(tbl text, row_id uuid, deleting boolean) returns void
language plpgsql stable set search_path = '' as $$
declare
  was_deleted boolean;
begin
  execute format('select t.deleted_at is not null from public.%I t where t.id = $1', tbl)
    into was_deleted using row_id;
  if was_deleted is null then
    raise exception '% row % not found', tbl, row_id using errcode = 'P0002', hint = 'NOT_FOUND';
  elsif was_deleted then
    if deleting then
      return;  -- deleting a tombstone again changes nothing: idempotent
    end if;
    raise exception '% row % was deleted', tbl, row_id using errcode = 'P0002', hint = 'NOT_FOUND';
  end if;
  raise exception 'permission denied to change % row %', tbl, row_id using errcode = '42501';
end
$$;

-- Applies one mutation, raising on any refusal (the caller rolls it back to a savepoint).
create function private.sync_apply(reg public.sync_registry, op text, row_id uuid, data jsonb)
returns void
language plpgsql volatile set search_path = '' as $$
declare
  cols text[];
  touched integer;
begin
  if op = 'insert' then
    if cardinality(reg.insert_columns) = 0 then
      raise exception 'rows of % are not created by clients', reg.name using errcode = '42501';
    end if;
    cols := private.sync_check_columns(reg.name, data, reg.insert_columns);
    if data ? 'id' and data ->> 'id' is distinct from row_id::text then
      raise exception 'data.id differs from the mutation id' using errcode = '22023';
    end if;
    execute format(
      'insert into public.%I (id%s) select $2%s from jsonb_populate_record(null::public.%I, $1) r',
      reg.name,
      (select coalesce(string_agg(format(', %I', c), ''), '') from unnest(cols) c),
      (select coalesce(string_agg(format(', r.%I', c), ''), '') from unnest(cols) c),
      reg.name)
      using data, row_id;
  elsif op = 'patch' then
    cols := private.sync_check_columns(reg.name, data, reg.patch_columns);
    if cardinality(cols) = 0 then
      execute format('select 1 from public.%I t where t.id = $1 and t.deleted_at is null', reg.name)
        using row_id;
      get diagnostics touched = row_count;
    else
      execute format(
        'update public.%I t set %s from jsonb_populate_record(null::public.%I, $1) r '
        'where t.id = $2 and t.deleted_at is null',
        reg.name,
        (select string_agg(format('%I = r.%I', c, c), ', ') from unnest(cols) c),
        reg.name)
        using data, row_id;
      get diagnostics touched = row_count;
    end if;
    if touched = 0 then
      perform private.sync_explain_miss(reg.name, row_id, false);
    end if;
  elsif op = 'delete' then
    if not reg.deletable then
      raise exception 'rows of % are not deleted by clients', reg.name using errcode = '42501';
    end if;
    execute format('update public.%I t set deleted_at = now() where t.id = $1 and t.deleted_at is null',
                   reg.name)
      using row_id;
    get diagnostics touched = row_count;
    if touched = 0 then
      perform private.sync_explain_miss(reg.name, row_id, true);
    end if;
  else
    raise exception 'unknown op "%"', left(op, 32) using errcode = '22023';
  end if;
end
$$;

create function public.sync_push(client_id uuid, mutations jsonb) returns jsonb
language plpgsql volatile security invoker set search_path = '' as $$
declare
  uid uuid := auth.uid();
  the_client uuid := client_id;
  applied_upto bigint;
  prev bigint := 0;
  m jsonb;
  m_seq bigint;
  tbl text;
  row_id uuid;
  reg public.sync_registry;
  results jsonb := '[]';
  refusal_code text;
  refusal_message text;
  err_state text;
  err_message text;
  err_column text;
  err_hint text;
begin
  if uid is null then
    raise exception 'sync_push needs a signed-in user' using errcode = '42501';
  end if;
  if the_client is null then
    raise exception 'client_id is required' using errcode = '22023';
  end if;
  if jsonb_typeof(mutations) is distinct from 'array' then
    raise exception 'mutations must be a JSON array' using errcode = '22023';
  end if;
  if jsonb_array_length(mutations) > 500 then
    raise exception 'a push carries at most 500 mutations' using errcode = '54000';
  end if;
  if octet_length(mutations::text) > 1048576 then
    raise exception 'a push carries at most 1 MiB' using errcode = '54000';
  end if;

  insert into public.sync_clients (id, user_id) values (the_client, uid) on conflict (id) do nothing;
  select c.last_seq into applied_upto from public.sync_clients c where c.id = the_client for update;
  if not found then
    raise exception 'client % belongs to another user', the_client using errcode = '42501';
  end if;

  for m in select value from jsonb_array_elements(mutations) loop
    m_seq := case when jsonb_typeof(m -> 'seq') = 'number' and (m ->> 'seq') ~ '^[1-9][0-9]{0,17}$'
                then (m ->> 'seq')::bigint end;
    if m_seq is null then
      raise exception 'every mutation needs a positive integer seq' using errcode = '22023';
    end if;
    if m_seq <= prev then
      raise exception 'mutation seqs must increase (% after %)', m_seq, prev using errcode = '22023';
    end if;
    prev := m_seq;
    tbl := m ->> 'table';
    row_id := case when (m ->> 'id') ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
                   then (m ->> 'id')::uuid end;

    if m_seq <= applied_upto then
      -- A replay (its response was lost): answer as the first time, change nothing.
      refusal_code := null;
      refusal_message := null;
      select r.code, r.message into refusal_code, refusal_message from public.sync_rejections r
        where r.client_id = the_client and r.seq = m_seq;
      results := results || jsonb_build_array(private.sync_compact(jsonb_build_object(
        'seq', m_seq,
        'status', case when refusal_code is null then 'applied' else 'rejected' end,
        'code', coalesce(refusal_code, 'DUPLICATE'),
        'message', refusal_message,
        'replayed', true,
        'row', private.sync_row(tbl, row_id))));
      continue;
    end if;

    begin
      select * into reg from public.sync_registry where name = tbl;
      if not found then
        raise exception 'unknown table "%"', left(coalesce(tbl, 'null'), 64) using errcode = '42P01';
      end if;
      if row_id is null then
        raise exception 'mutation id must be a uuid' using errcode = '22023';
      end if;
      perform private.sync_apply(reg, m ->> 'op', row_id, coalesce(m -> 'data', '{}'));
      results := results || jsonb_build_array(jsonb_build_object(
        'seq', m_seq, 'status', 'applied', 'row', private.sync_row(tbl, row_id)));
    exception when others then
      get stacked diagnostics err_state = returned_sqlstate, err_message = message_text,
                              err_column = column_name, err_hint = pg_exception_hint;
      insert into public.sync_rejections (client_id, seq, user_id, code, message)
        values (the_client, m_seq, uid, err_state, err_message);
      results := results || jsonb_build_array(private.sync_compact(jsonb_build_object(
        'seq', m_seq, 'status', 'rejected', 'code', err_state, 'message', err_message,
        'column', nullif(err_column, ''), 'hint', nullif(err_hint, ''),
        'row', private.sync_row(tbl, row_id))));
    end;
    applied_upto := m_seq;
  end loop;

  update public.sync_clients c set last_seq = applied_upto, last_push_at = now()
    where c.id = the_client;
  return jsonb_build_object('last_seq', applied_upto, 'results', results);
end
$$;

-- ---------------------------------------------------------------------------------------
-- sync_pull
-- ---------------------------------------------------------------------------------------
-- Each row has a key (eff, table, xid, id): xid its sync_xid, eff the greater of that and
-- the granted_xid of the membership (or co-membership, for profiles) through which the
-- caller sees it. So a row written before the caller joined a list sorts at the grant and
-- is delivered then (backfill), and paging is plain keyset paging over that key. A cursor
-- is the last key delivered, or just a horizon `H`: every key with eff < H was delivered.

-- The caller's scopes: (key, granted) pairs through which rows reach them.
create function private.sync_scope(kind text) returns table (k uuid, g xid8)
language sql stable security invoker rows 20 set search_path = '' as $$
  -- own memberships, tombstones included: a revoked member receives their tombstone
  select m.list_id, m.granted_xid from public.memberships m
  where kind = 'list' and m.user_id = auth.uid()
  union all
  (select distinct on (p.k) p.k, p.g from (
     select auth.uid() as k, '0'::xid8 as g
     union all
     select them.user_id, greatest(me.granted_xid, them.granted_xid)
     from public.memberships me
     join public.memberships them on them.list_id = me.list_id and them.deleted_at is null
     where me.user_id = auth.uid() and me.deleted_at is null
   ) p
   where kind = 'peer'
   order by p.k, p.g desc)
$$;

create function public.sync_pull(cursor text default null, max_rows integer default 1000)
returns jsonb
-- JIT off: the union's cost estimate crosses jit_above_cost and compiling costs ~70 ms a
-- call on Postgres 15, ten times the query itself.
language plpgsql stable security invoker set search_path = '' set jit = off as $$
declare
  horizon xid8 := pg_snapshot_xmin(pg_current_snapshot());
  nil constant uuid := '00000000-0000-0000-0000-000000000000';
  top constant uuid := 'ffffffff-ffff-ffff-ffff-ffffffffffff';
  c_eff xid8 := '0';
  c_tbl text := '';
  c_xid xid8 := '0';
  c_id uuid := nil;
  n integer := least(greatest(coalesce(max_rows, 1000), 1), 1000);
  parts text[];
  purged xid8;
  reg public.sync_registry;
  branches text[] := '{}';
  a_bound text;
  b_cond text;
  page jsonb;
  got integer;
  last_key text;
  next_cursor text;
begin
  if auth.uid() is null then
    raise exception 'sync_pull needs a signed-in user' using errcode = '42501';
  end if;

  if cursor is not null then
    parts := string_to_array(cursor, '/');
    if not (cardinality(parts) in (1, 4) and parts[1] ~ '^[0-9]{1,20}$') then
      raise exception 'malformed cursor' using errcode = '22023';
    end if;
    c_eff := parts[1]::xid8;
    if cardinality(parts) = 4 then
      if not exists (select 1 from public.sync_registry where name = parts[2])
         or parts[3] !~ '^[0-9]{1,20}$'
         or parts[4] !~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
        raise exception 'malformed cursor' using errcode = '22023';
      end if;
      c_tbl := parts[2];
      c_xid := parts[3]::xid8;
      c_id := parts[4]::uuid;
    end if;
    select s.purged_xid into purged from public.sync_state s;
    if c_eff <= purged then
      raise exception 'CURSOR_EXPIRED' using errcode = 'PT410',
        hint = 'Tombstones newer than this cursor were purged: resync from scratch.';
    end if;
  end if;

  for reg in select * from public.sync_registry order by name collate "C" loop
    -- Branch A: rows written at or after the grant (eff = xid), paged by (xid, id).
    a_bound := case
      when reg.name collate "C" > c_tbl then format('(t.sync_xid, t.id) >= (%L::xid8, %L::uuid)', c_eff, nil)
      when reg.name = c_tbl and c_xid = c_eff then format('(t.sync_xid, t.id) > (%L::xid8, %L::uuid)', c_eff, c_id)
      when reg.name = c_tbl then format('(t.sync_xid, t.id) >= (%L::xid8, %L::uuid)', c_eff, nil)
      else format('(t.sync_xid, t.id) > (%L::xid8, %L::uuid)', c_eff, top)
    end;
    branches := branches || format(
      'select t.sync_xid as eff, %1$L::text as tbl, t.sync_xid as xid, t.id, t.row
       from private.sync_scope(%2$L) s
       cross join lateral (
         select t.sync_xid, t.id, to_jsonb(t) - ''sync_xid'' - ''granted_xid'' as row
         from public.%1$I t
         where t.%3$I = s.k and t.sync_xid >= s.g and t.sync_xid < %4$L::xid8 and %5$s
         order by t.sync_xid, t.id limit %6$s) t',
      reg.name, reg.scope, reg.scope_column, horizon, a_bound, n);

    -- Branch B: rows older than the grant, delivered at it (eff = granted).
    b_cond := case
      when reg.name collate "C" > c_tbl then format('s.g >= %L::xid8', c_eff)
      else format('s.g > %L::xid8', c_eff)
    end;
    branches := branches || format(
      'select s.g as eff, %1$L::text as tbl, t.sync_xid as xid, t.id, t.row
       from private.sync_scope(%2$L) s
       cross join lateral (
         select t.sync_xid, t.id, to_jsonb(t) - ''sync_xid'' - ''granted_xid'' as row
         from public.%1$I t
         where %5$s and s.g < %4$L::xid8 and t.%3$I = s.k and t.sync_xid < s.g
         order by t.sync_xid, t.id limit %6$s) t',
      reg.name, reg.scope, reg.scope_column, horizon, b_cond, n);
    if reg.name = c_tbl then
      -- ...and the rest of the grant group the cursor stopped inside.
      branches := branches || format(
        'select s.g as eff, %1$L::text as tbl, t.sync_xid as xid, t.id, t.row
         from private.sync_scope(%2$L) s
         cross join lateral (
           select t.sync_xid, t.id, to_jsonb(t) - ''sync_xid'' - ''granted_xid'' as row
           from public.%1$I t
           where s.g = %5$L::xid8 and s.g < %4$L::xid8 and t.%3$I = s.k and t.sync_xid < s.g
             and (t.sync_xid, t.id) > (%6$L::xid8, %7$L::uuid)
           order by t.sync_xid, t.id limit %8$s) t',
        reg.name, reg.scope, reg.scope_column, horizon, c_eff, c_xid, c_id, n);
    end if;
  end loop;

  execute format(
    'select coalesce(jsonb_agg(jsonb_build_object(''table'', p.tbl, ''row'', p.row)
                               order by p.eff, p.tbl collate "C", p.xid, p.id), ''[]''),
            count(*)::integer,
            (array_agg(p.eff::text || ''/'' || p.tbl || ''/'' || p.xid::text || ''/'' || p.id::text
                       order by p.eff desc, p.tbl collate "C" desc, p.xid desc, p.id desc))[1]
     from (select * from (%s) u order by u.eff, u.tbl collate "C", u.xid, u.id limit %s) p',
    array_to_string(branches, ' union all '), n)
    into page, got, last_key;

  if got >= n then
    next_cursor := last_key;
  else
    next_cursor := horizon::text;
  end if;
  return jsonb_build_object(
    'rows', page,
    'cursor', next_cursor,
    'has_more', got >= n,
    'schema_version', public.sync_schema_version());
end
$$;

-- ---------------------------------------------------------------------------------------
-- Tombstone purge (run by a scheduled job with the service role).
-- ---------------------------------------------------------------------------------------
create function public.sync_purge_tombstones(retention interval default interval '90 days')
returns jsonb
language plpgsql volatile security definer set search_path = '' as $$
declare
  reg public.sync_registry;
  removed bigint;
  newest xid8;
  summary jsonb := '{}';
begin
  for reg in select * from public.sync_registry order by depth desc, name loop
    execute format(
      'with gone as (delete from public.%I where deleted_at < now() - $1 returning sync_xid)
       select count(*), max(sync_xid::text::numeric)::text::xid8 from gone', reg.name)
      into removed, newest using retention;
    if newest is not null then
      update public.sync_state set purged_xid = greatest(purged_xid, newest);
    end if;
    summary := summary || jsonb_build_object(reg.name, removed);
  end loop;
  delete from public.sync_rejections where created_at < now() - retention;
  return summary;
end
$$;

revoke execute on function public.sync_purge_tombstones(interval) from public, anon, authenticated;
grant execute on function public.sync_purge_tombstones(interval) to service_role;
