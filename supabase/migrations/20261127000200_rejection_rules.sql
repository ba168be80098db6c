-- Refusals say which rule they broke as values, never only as English: sync_push's result
-- for a refused mutation carries, beside its SQLSTATE and message, the column, the rule code
-- a trigger raised as HINT (LAST_OWNER, MEMBER_LIMIT, ASSIGNEE_NOT_MEMBER, ATTACHMENT_LIMIT,
-- NOT_FOUND) and the constraint Postgres names (a check such as tasks_title_check, a primary
-- key's tasks_pkey, a domain's list_color_check). The client picks its sentence by these, and
-- tells a replayed insert (its own primary key) from a real conflict by the constraint. A
-- replay (a lost response) answers with the same facts, so they are kept with the refusal.

alter table public.sync_rejections
  add column if not exists column_name text,
  add column if not exists hint text,
  add column if not exists constraint_name text;

drop function if exists private.sync_rejection_record(uuid, bigint, text, text);

-- As before (…0100_security.sql), with the rule's facts.
create or replace function private.sync_rejection_record(the_client uuid, the_seq bigint,
                                                        the_code text, the_message text,
                                                        the_column text, the_hint text,
                                                        the_constraint text)
returns void
language plpgsql volatile security definer set search_path = '' as $$
begin
  insert into public.sync_rejections
    (client_id, seq, user_id, code, message, column_name, hint, constraint_name)
  select c.id, the_seq, c.user_id, the_code, the_message, the_column, the_hint, the_constraint
    from public.sync_clients c where c.id = the_client and c.user_id = auth.uid()
  on conflict (client_id, seq) do update
    set user_id = excluded.user_id, code = excluded.code, message = excluded.message,
        column_name = excluded.column_name, hint = excluded.hint,
        constraint_name = excluded.constraint_name, created_at = now();
end
$$;

revoke execute on function private.sync_rejection_record(uuid, bigint, text, text, text, text, text)
  from public, anon;
grant execute on function private.sync_rejection_record(uuid, bigint, text, text, text, text, text)
  to authenticated;

-- sync_push as before (…0100_security.sql), with the rule's facts in each refusal.
create or replace function public.sync_push(client_id uuid, mutations jsonb) returns jsonb
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
  refusal record;
  err_state text;
  err_message text;
  err_column text;
  err_hint text;
  err_constraint text;
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

  applied_upto := private.sync_client_claim(the_client);

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
      select r.code, r.message, r.column_name, r.hint, r.constraint_name into refusal
        from public.sync_rejections r where r.client_id = the_client and r.seq = m_seq;
      results := results || jsonb_build_array(private.sync_compact(jsonb_build_object(
        'seq', m_seq,
        'status', case when refusal.code is null then 'applied' else 'rejected' end,
        'code', coalesce(refusal.code, 'DUPLICATE'),
        'message', refusal.message,
        'column', refusal.column_name, 'hint', refusal.hint, 'constraint', refusal.constraint_name,
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
                              err_column = column_name, err_hint = pg_exception_hint,
                              err_constraint = constraint_name;
      err_column := nullif(err_column, '');
      err_hint := nullif(err_hint, '');
      err_constraint := nullif(err_constraint, '');
      perform private.sync_rejection_record(the_client, m_seq, err_state, err_message,
                                            err_column, err_hint, err_constraint);
      results := results || jsonb_build_array(private.sync_compact(jsonb_build_object(
        'seq', m_seq, 'status', 'rejected', 'code', err_state, 'message', err_message,
        'column', err_column, 'hint', err_hint, 'constraint', err_constraint,
        'row', private.sync_row(tbl, row_id))));
    end;
    applied_upto := m_seq;
  end loop;

  perform private.sync_client_done(the_client, applied_upto);
  return jsonb_build_object('last_seq', applied_upto, 'results', results);
end
$$;
