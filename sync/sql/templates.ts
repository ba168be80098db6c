// The sync core's SQL as templates: the effective final definitions of Outpost's migrations
// (supabase/migrations/…_sync.sql and the later files that replace parts of it), with
// Outpost's names (lists, memberships, list_id, user_id, role, profiles, the `outpost.`
// setting prefix and policy names) as placeholders that generate.ts fills from a SyncSchema.
// generate.test.ts applies the output for Outpost's own schema over Outpost's migrations and
// checks that no definition changes, so these stay Outpost's real code.
//
// Every name interpolated here has been validated by generate.ts as [a-z_][a-z0-9_]* and not
// a reserved word, so it is a safe unquoted identifier and a safe string literal; values of
// the dynamic SQL inside the functions go through format('%I' / '%L') or bound parameters.

/** The names a template is filled with (validated identifiers). */
export interface Names {
  /** The app's short name: the realtime policies' prefix and the epoch setting's namespace. */
  readonly app: string;
  /** The container table (Outpost: lists). */
  readonly scopes: string;
  /** The membership table (memberships). */
  readonly members: string;
  /** The membership's container column (list_id). */
  readonly memberScope: string;
  /** The membership's user column (user_id). */
  readonly memberUser: string;
  /** The membership's role column (role), or null when memberships have no roles. */
  readonly memberRole: string | null;
  /** The peer table (profiles), if any. */
  readonly peers: string | null;
  /** `<scopes>_realtime_epoch_guard`. */
  readonly scopesEpochGuard: string;
  /** `<members>_realtime_epoch`. */
  readonly membersEpoch: string;
}

/** `(roles is null or m.role = any (roles))`; without roles, a roles filter matches nothing. */
function roleFilter(n: Names, alias: string): string {
  return n.memberRole === null
    ? '(roles is null)'
    : `(roles is null or ${alias}.${n.memberRole} = any (roles))`;
}

const IS_CLIENT_ROLE = `create or replace function private.is_client_role() returns boolean
language sql stable set search_path = '' as $$
  select coalesce(current_setting('role', true), 'none') in ('anon', 'authenticated')
$$;
`;

const SYNC_STAMP = `create or replace function private.sync_stamp() returns trigger
language plpgsql set search_path = '' as $$
declare
  client boolean := private.is_client_role();
begin
  if tg_op = 'INSERT' then
    new.version := 1;
    new.created_at := now();
    new.updated_at := now();
    new.deleted_at := null;
  else
    if old.deleted_at is not null and client then
      raise exception '% row % was deleted', tg_table_name, old.id
        using errcode = 'P0002', hint = 'NOT_FOUND';
    end if;
    if new.id is distinct from old.id then
      raise exception 'id of % cannot change', tg_table_name using errcode = '22023';
    end if;
    -- old.deleted_at is null here, so a change is a delete: the client may ask for one, the
    -- server says when (a 1970 tombstone would be purged at once and expire every device's
    -- cursor; a 2999 one never would be).
    if client and new.deleted_at is distinct from old.deleted_at then
      if not coalesce((select r.deletable from public.sync_registry r where r.name = tg_table_name),
                      false) then
        raise exception 'rows of % are not deleted by clients', tg_table_name
          using errcode = '42501', column = 'deleted_at';
      end if;
      new.deleted_at := now();
    end if;
    new.version := old.version + 1;
    new.created_at := old.created_at;
    new.updated_at := now();
  end if;
  new.sync_xid := pg_current_xact_id();
  return new;
end
$$;
`;

const SYNC_COMPACT = `create or replace function private.sync_compact(obj jsonb) returns jsonb
language sql immutable set search_path = '' as $$
  select coalesce(jsonb_object_agg(e.key, e.value), '{}')
  from jsonb_each(obj) e
  where e.value <> 'null'::jsonb
$$;
`;

const SYNC_ROW = `create or replace function private.sync_row(tbl text, row_id uuid) returns jsonb
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
`;

const SYNC_CHECK_COLUMNS = `create or replace function private.sync_check_columns(tbl text, data jsonb, allowed text[]) returns text[]
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
`;

const SYNC_EXPLAIN_MISS = `create or replace function private.sync_explain_miss(tbl text, row_id uuid, deleting boolean) returns void
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
`;

const SYNC_APPLY = `create or replace function private.sync_apply(reg public.sync_registry, op text, row_id uuid, data jsonb)
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
`;

const SYNC_CLIENT_CLAIM = `create or replace function private.sync_client_claim(the_client uuid) returns bigint
language plpgsql volatile security definer set search_path = '' as $$
declare
  uid uuid := auth.uid();
  holder uuid;
  upto bigint;
begin
  if uid is null then
    raise exception 'sync_push needs a signed-in user' using errcode = '42501';
  end if;
  insert into public.sync_clients (id, user_id) values (the_client, uid) on conflict (id) do nothing;
  select c.user_id, c.last_seq into holder, upto from public.sync_clients c
    where c.id = the_client for update;
  if holder is distinct from uid then
    raise exception 'client % belongs to another user', the_client using errcode = '42501';
  end if;
  return upto;
end
$$;
`;

const SYNC_CLIENT_DONE = `create or replace function private.sync_client_done(the_client uuid, upto bigint) returns void
language plpgsql volatile security definer set search_path = '' as $$
begin
  update public.sync_clients c set last_seq = greatest(c.last_seq, upto), last_push_at = now()
    where c.id = the_client and c.user_id = auth.uid();
end
$$;
`;

const SYNC_REJECTION_RECORD = `create or replace function private.sync_rejection_record(the_client uuid, the_seq bigint,
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
`;

const SYNC_PUSH = `create or replace function public.sync_push(client_id uuid, mutations jsonb) returns jsonb
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
`;

const SYNC_PULL = `create or replace function public.sync_pull(cursor text default null, max_rows integer default 1000)
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
  counts text[] := '{}';
  page jsonb;
  got integer;
  last_key text;
  next_cursor text;
  answer jsonb;
  expected integer;
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
    if cursor is null then
      -- A pull from scratch also says how many rows all its pages will deliver: from a null
      -- cursor, branches A and B of a scope granted below the horizon together return each
      -- of its rows below the horizon once, and a scope granted later returns none.
      counts := counts || format(
        '(select count(*) from private.sync_scope(%2$L) s
          join public.%1$I t on t.%3$I = s.k
          where s.g < %4$L::xid8 and t.sync_xid < %4$L::xid8)',
        reg.name, reg.scope, reg.scope_column, horizon);
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
  answer := jsonb_build_object(
    'rows', page,
    'cursor', next_cursor,
    'has_more', got >= n,
    'schema_version', public.sync_schema_version());
  if cursor is null then
    if got < n then
      expected := got;  -- this one page is all of it
    else
      -- Same snapshot as the page (a STABLE function's statements share its query's).
      execute 'select (' || array_to_string(counts || '0'::text, ' + ') || ')::integer'
        into expected;
    end if;
    answer := answer || jsonb_build_object('expected', expected);
  end if;
  return answer;
end
$$;
`;

const SYNC_PURGE_TOMBSTONES = `create or replace function public.sync_purge_tombstones(retention interval default interval '90 days')
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
`;

// The membership lookups are PL/pgSQL, not SQL: a SQL function that cannot be inlined (these
// are SECURITY DEFINER, so none is) plans its query on every call; PL/pgSQL keeps the plan for
// the session, and every policy check and pushed change calls them.
function myListIds(n: Names): string {
  return `create or replace function private.my_list_ids(roles text[] default null) returns setof uuid
language plpgsql stable security definer set search_path = '' as $$
begin
  return query
    select m.${n.memberScope}
    from public.${n.members} m
    where m.${n.memberUser} = auth.uid()
      and m.deleted_at is null
      and ${roleFilter(n, 'm')};
end
$$;
`;
}

function hasListRole(n: Names): string {
  return `create or replace function private.has_list_role(list uuid, roles text[] default null) returns boolean
language plpgsql stable security definer set search_path = '' as $$
begin
  return exists (
    select 1 from public.${n.members} m
    where m.${n.memberScope} = list and m.${n.memberUser} = auth.uid() and m.deleted_at is null
      and ${roleFilter(n, 'm')}
  );
end
$$;
`;
}

function coMemberIds(n: Names): string {
  return `create or replace function private.co_member_ids() returns setof uuid
language plpgsql stable security definer set search_path = '' as $$
begin
  return query
    select distinct them.${n.memberUser}
    from public.${n.members} me
    join public.${n.members} them on them.${n.memberScope} = me.${n.memberScope} and them.deleted_at is null
    where me.${n.memberUser} = auth.uid() and me.deleted_at is null;
end
$$;
`;
}

function syncScope(n: Names): string {
  return `create or replace function private.sync_scope(kind text) returns table (k uuid, g xid8)
language sql stable security invoker rows 20 set search_path = '' as $$
  -- (select auth.uid()) and the array below, not auth.uid() and a join: under RLS only
  -- leakproof conditions become index conditions; an InitPlan's value is one, auth.uid() is
  -- not. Co-members: the live members of the caller's live lists, each at the later grant.
  -- own memberships, tombstones included: a revoked member receives their tombstone
  select m.${n.memberScope}, m.granted_xid from public.${n.members} m
  where kind = 'list' and m.${n.memberUser} = (select auth.uid())
  union all
  (select distinct on (p.k) p.k, p.g from (
     select (select auth.uid()) as k, '0'::xid8 as g
     union all
     select them.${n.memberUser},
            greatest(them.granted_xid, (select me.granted_xid from public.${n.members} me
                                        where me.${n.memberScope} = them.${n.memberScope}
                                          and me.${n.memberUser} = (select auth.uid())
                                          and me.deleted_at is null))
     from public.${n.members} them
     where them.deleted_at is null
       and them.${n.memberScope} = any (array(
             select mine.${n.memberScope} from public.${n.members} mine
             where mine.${n.memberUser} = (select auth.uid()) and mine.deleted_at is null))
   ) p
   where kind = 'peer'
   order by p.k, p.g desc)
$$;
`;
}

function listTopic(n: Names): string {
  return `create or replace function private.list_topic(list uuid) returns text
language sql stable security definer set search_path = '' as $$
  select 'list:' || l.id::text || ':' || l.realtime_epoch::text from public.${n.scopes} l where l.id = list
$$;
`;
}

// Whether the caller may join a data topic (`list:<id>:<epoch>`, an epoch the container has
// reached) or a presence topic (`list:<id>:<epoch>:presence`, its current epoch only): the
// realtime policies' one decision (issue 35). The topic is matched whole before any cast.
function mayJoinListTopic(n: Names): string {
  return `create or replace function private.may_join_list_topic(topic text, presence boolean) returns boolean
language plpgsql stable security definer set search_path = '' as $$
declare
  parts text[] := regexp_match(topic,
    '^list:([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}):(0|[1-9][0-9]{0,8})(:presence)?$');
begin
  if parts is null or presence is null or (parts[3] is not null) <> presence then
    return false;
  end if;
  return exists (
    select 1
    from public.${n.members} m
    join public.${n.scopes} l on l.id = m.${n.memberScope}
    where m.${n.memberScope} = parts[1]::uuid
      and m.${n.memberUser} = auth.uid()
      and m.deleted_at is null
      and case when presence then parts[2]::integer = l.realtime_epoch
               else parts[2]::integer <= l.realtime_epoch end);
end
$$;
`;
}

function epochGuard(n: Names): string {
  return `create or replace function private.${n.scopesEpochGuard}() returns trigger
language plpgsql set search_path = '' as $$
begin
  if coalesce(current_setting('${n.app}.realtime_epoch_bump', true), '') <> 'on' then
    if tg_op = 'INSERT' then
      new.realtime_epoch := 0;
    else
      new.realtime_epoch := old.realtime_epoch;
    end if;
  end if;
  return new;
end
$$;
`;
}

function membersEpoch(n: Names): string {
  return `create or replace function private.${n.membersEpoch}() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if old.deleted_at is null and new.deleted_at is not null then
    perform set_config('${n.app}.realtime_epoch_bump', 'on', true);
    update public.${n.scopes} set realtime_epoch = realtime_epoch + 1
      where id = new.${n.memberScope} and deleted_at is null;
    perform set_config('${n.app}.realtime_epoch_bump', '', true);
  end if;
  return null;
end
$$;
`;
}

/** The list-scoped tables other than the container and the memberships, by scope column. */
export type ScopedGroups = readonly (readonly [column: string, tables: readonly string[]])[];

function realtimeSendRow(n: Names, groups: ScopedGroups): string {
  const scoped = groups
    .map(
      ([column, tables]) =>
        `  elsif tg_table_name in (${tables.map((t) => `'${t}'`).join(', ')}) then
    perform realtime.send(payload, 'row', private.list_topic(new.${column}), true);
`,
    )
    .join('');
  const peers =
    n.peers === null
      ? ''
      : `  elsif tg_table_name = '${n.peers}' then
    for topic in
      select 'list:' || l.id::text || ':' || l.realtime_epoch::text
      from public.${n.members} m join public.${n.scopes} l on l.id = m.${n.memberScope}
      where m.${n.memberUser} = new.id and m.deleted_at is null
      order by l.id
    loop
      perform realtime.send(payload, 'row', topic, true);
    end loop;
`;
  return `create or replace function private.realtime_send_row() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  payload jsonb := jsonb_build_object(
    'table', tg_table_name,
    'row', to_jsonb(new) - 'sync_xid' - 'granted_xid',
    'xid', new.sync_xid::text);
  topic text;
  member uuid;
begin
  if tg_table_name = '${n.scopes}' then
    perform realtime.send(payload, 'row', 'list:' || new.id::text || ':' || new.realtime_epoch::text, true);
    -- A new epoch: each member who stays hears of it on their own topic.
    if tg_op = 'UPDATE' and new.realtime_epoch <> old.realtime_epoch then
      for member in
        select m.${n.memberUser} from public.${n.members} m
        where m.${n.memberScope} = new.id and m.deleted_at is null
        order by m.${n.memberUser}
      loop
        perform realtime.send(payload, 'row', 'user:' || member::text, true);
      end loop;
    end if;
  elsif tg_table_name = '${n.members}' then
    perform realtime.send(payload, 'row', private.list_topic(new.${n.memberScope}), true);
    perform realtime.send(payload, 'row', 'user:' || new.${n.memberUser}::text, true);
${scoped}${peers}  end if;
  return null;
end
$$;
`;
}

/** One synced table as the server registry stores it. */
export interface RegistryRow {
  readonly name: string;
  readonly scope: 'list' | 'peer';
  readonly scopeColumn: string;
  readonly insertColumns: readonly string[];
  readonly patchColumns: readonly string[];
  readonly deletable: boolean;
  readonly depth: number;
}

/** What the whole migration is made from: validated names and the registry's rows. */
export interface Template {
  readonly names: Names;
  readonly version: number;
  readonly registry: readonly RegistryRow[];
  readonly groups: ScopedGroups;
  /** The comment the migration starts with. */
  readonly header: string;
}

const list = (names: readonly string[]) => names.map((t) => `'${t}'`).join(', ');
const arrayLiteral = (names: readonly string[]) => `'{${names.join(',')}}'`;

/** The sync columns every registry table carries (added when an app's table lacks them). */
function syncColumns(table: string, extra: readonly string[]): string {
  return `alter table public.${table}
${[
  'created_at timestamptz not null default now()',
  'updated_at timestamptz not null default now()',
  'deleted_at timestamptz',
  'version bigint not null default 1',
  'sync_xid xid8 not null default pg_current_xact_id()',
  ...extra,
]
  .map((c) => `  add column if not exists ${c}`)
  .join(',\n')};
`;
}

/** The index sync_pull pages a table by. */
function syncIndex(row: RegistryRow): string {
  const columns =
    row.scope === 'peer'
      ? `${row.scopeColumn}, sync_xid`
      : row.scopeColumn === 'id'
        ? 'sync_xid, id'
        : `${row.scopeColumn}, sync_xid, id`;
  return `create index if not exists ${row.name}_sync_idx on public.${row.name} (${columns});\n`;
}

function perTable(rows: readonly RegistryRow[], make: (table: string) => string): string {
  return rows.map((r) => make(r.name)).join('');
}

/** The whole sync migration for one app. */
export function renderMigration(t: Template): string {
  const n = t.names;
  const tables = t.registry;
  const registryRows = tables
    .map(
      (r) =>
        `  (${list([r.name, r.scope, r.scopeColumn])}, ${arrayLiteral(r.insertColumns)}, ${arrayLiteral(
          r.patchColumns,
        )}, ${String(r.deletable)}, ${String(r.depth)})`,
    )
    .join(',\n');
  return `${t.header}
-- ---------------------------------------------------------------------------------------
-- Helpers live in private, a schema the API does not expose (none is callable as an RPC).
-- ---------------------------------------------------------------------------------------
create schema if not exists private;
grant usage on schema private to anon, authenticated, service_role;

-- True when the statement runs for an API caller rather than for the server itself.
${IS_CLIENT_ROLE}
-- ---------------------------------------------------------------------------------------
-- The synced tables' sync columns and the indexes sync_pull pages by (kept when present).
-- ---------------------------------------------------------------------------------------
${tables
  .map((r) =>
    syncColumns(
      r.name,
      r.name === n.members ? ['granted_xid xid8 not null default pg_current_xact_id()'] : [],
    ),
  )
  .join(
    '',
  )}alter table public.${n.scopes} add column if not exists realtime_epoch integer not null default 0;
${tables.map(syncIndex).join('')}create index if not exists ${n.members}_user_idx on public.${n.members} (${n.memberUser}, ${n.memberScope});

-- ---------------------------------------------------------------------------------------
-- Membership helpers (SECURITY DEFINER, so policies on ${n.members} may use them).
-- ---------------------------------------------------------------------------------------
${myListIds(n)}
${hasListRole(n)}
-- Users who share at least one live ${n.scopes} row with the caller.
${coMemberIds(n)}
revoke execute on function private.my_list_ids(text[]), private.has_list_role(uuid, text[]),
  private.co_member_ids() from public, anon;
grant execute on function private.my_list_ids(text[]), private.has_list_role(uuid, text[]),
  private.co_member_ids() to authenticated, service_role;

-- ---------------------------------------------------------------------------------------
-- The registry (from the app's SyncSchema) and the sync bookkeeping.
-- ---------------------------------------------------------------------------------------
create table if not exists public.sync_registry (
  name text primary key,
  scope text not null check (scope in ('list', 'peer')),
  scope_column text not null,
  insert_columns text[] not null,
  patch_columns text[] not null,
  deletable boolean not null,
  depth integer not null
);
alter table public.sync_registry enable row level security;
drop policy if exists "sync_registry: readable by all" on public.sync_registry;
create policy "sync_registry: readable by all" on public.sync_registry for select using (true);
revoke insert, update, delete, truncate on public.sync_registry from anon, authenticated;

delete from public.sync_registry where name not in (${list(tables.map((r) => r.name))});
insert into public.sync_registry
  (name, scope, scope_column, insert_columns, patch_columns, deletable, depth)
values
${registryRows}
on conflict (name) do update
  set scope = excluded.scope, scope_column = excluded.scope_column,
      insert_columns = excluded.insert_columns, patch_columns = excluded.patch_columns,
      deletable = excluded.deletable, depth = excluded.depth;

-- The version of the sync contract: a client that knows another must update.
create or replace function public.sync_schema_version() returns integer
language sql immutable as $$ select ${String(t.version)} $$;

create table if not exists public.sync_clients (
  id uuid primary key,
  user_id uuid not null default auth.uid() references auth.users (id) on delete cascade,
  last_seq bigint not null default 0 check (last_seq >= 0),
  created_at timestamptz not null default now(),
  last_push_at timestamptz
);
alter table public.sync_clients enable row level security;
drop policy if exists "sync_clients: own, read only" on public.sync_clients;
create policy "sync_clients: own, read only" on public.sync_clients
  for select to authenticated using (user_id = (select auth.uid()));
revoke insert, update, delete, truncate on public.sync_clients from anon, authenticated;

create table if not exists public.sync_rejections (
  client_id uuid not null references public.sync_clients (id) on delete cascade,
  seq bigint not null,
  user_id uuid not null default auth.uid(),
  code text not null,
  message text not null,
  created_at timestamptz not null default now(),
  column_name text,
  hint text,
  constraint_name text,
  primary key (client_id, seq)
);
alter table public.sync_rejections
  add column if not exists column_name text,
  add column if not exists hint text,
  add column if not exists constraint_name text;
alter table public.sync_rejections enable row level security;
drop policy if exists "sync_rejections: own, read only" on public.sync_rejections;
create policy "sync_rejections: own, read only" on public.sync_rejections
  for select to authenticated using (user_id = (select auth.uid()));
revoke insert, update, delete, truncate on public.sync_rejections from anon, authenticated;

create table if not exists public.sync_state (
  singleton boolean primary key default true check (singleton),
  purged_xid xid8 not null default '0'
);
insert into public.sync_state default values on conflict do nothing;
alter table public.sync_state enable row level security;
drop policy if exists "sync_state: readable by all" on public.sync_state;
create policy "sync_state: readable by all" on public.sync_state for select using (true);
revoke insert, update, delete, truncate on public.sync_state from anon, authenticated;

-- ---------------------------------------------------------------------------------------
-- Stamping: every write bumps version and sync_xid; the server says when.
-- ---------------------------------------------------------------------------------------
${SYNC_STAMP}
${perTable(
  tables,
  (table) => `drop trigger if exists a_sync_stamp on public.${table};
create trigger a_sync_stamp before insert or update on public.${table}
  for each row execute function private.sync_stamp();
`,
)}
-- ---------------------------------------------------------------------------------------
-- sync_push
-- ---------------------------------------------------------------------------------------
${SYNC_COMPACT}
${SYNC_ROW}
${SYNC_CHECK_COLUMNS}
${SYNC_EXPLAIN_MISS}
${SYNC_APPLY}
${SYNC_CLIENT_CLAIM}
${SYNC_CLIENT_DONE}
${SYNC_REJECTION_RECORD}
revoke execute on function private.sync_client_claim(uuid), private.sync_client_done(uuid, bigint),
  private.sync_rejection_record(uuid, bigint, text, text, text, text, text) from public, anon;
grant execute on function private.sync_client_claim(uuid), private.sync_client_done(uuid, bigint),
  private.sync_rejection_record(uuid, bigint, text, text, text, text, text) to authenticated;

${SYNC_PUSH}
-- ---------------------------------------------------------------------------------------
-- sync_pull
-- ---------------------------------------------------------------------------------------
${syncScope(n)}
${SYNC_PULL}
-- ---------------------------------------------------------------------------------------
-- Tombstone purge (run by a scheduled job with the service role).
-- ---------------------------------------------------------------------------------------
${SYNC_PURGE_TOMBSTONES}
revoke execute on function public.sync_purge_tombstones(interval) from public, anon, authenticated;
grant execute on function public.sync_purge_tombstones(interval) to service_role;

-- ---------------------------------------------------------------------------------------
-- Realtime: each committed row change goes to \`list:<id>:<epoch>\` (and a membership also to
-- \`user:<id>\`); removing a member moves the ${n.scopes} row to its next epoch.
-- ---------------------------------------------------------------------------------------
${epochGuard(n)}
drop trigger if exists b0_realtime_epoch on public.${n.scopes};
create trigger b0_realtime_epoch before insert or update on public.${n.scopes}
  for each row execute function private.${n.scopesEpochGuard}();

${membersEpoch(n)}
drop trigger if exists c_realtime_epoch on public.${n.members};
create trigger c_realtime_epoch after update of deleted_at on public.${n.members}
  for each row execute function private.${n.membersEpoch}();

${listTopic(n)}
revoke execute on function private.list_topic(uuid) from public, anon, authenticated;

${realtimeSendRow(n, t.groups)}
${perTable(
  tables,
  (table) => `drop trigger if exists z_realtime_send on public.${table};
create trigger z_realtime_send after insert or update on public.${table}
  for each row execute function private.realtime_send_row();
`,
)}
-- Who may join: live members their ${n.scopes} data topics \`list:<id>:<epoch>\` at epochs it
-- has reached, and its presence topic \`list:<id>:<epoch>:presence\` at its current epoch only;
-- users their own topic; no broadcast INSERT policy (only the database sends).
${mayJoinListTopic(n)}
revoke execute on function private.may_join_list_topic(text, boolean) from public, anon;
grant execute on function private.may_join_list_topic(text, boolean) to authenticated;

drop policy if exists "${n.app}: members hear their ${n.scopes}, users their own topic"
  on realtime.messages;
create policy "${n.app}: members hear their ${n.scopes}, users their own topic" on realtime.messages
  for select to authenticated
  using (realtime.messages.extension = 'broadcast'
         and ((select private.may_join_list_topic((select realtime.topic()), false))
              or (select realtime.topic()) = 'user:' || (select auth.uid())::text));

drop policy if exists "${n.app}: members see presence on their ${n.scopes}" on realtime.messages;
create policy "${n.app}: members see presence on their ${n.scopes}" on realtime.messages
  for select to authenticated
  using (realtime.messages.extension = 'presence'
         and (select private.may_join_list_topic((select realtime.topic()), true)));

drop policy if exists "${n.app}: members track presence on their ${n.scopes}" on realtime.messages;
create policy "${n.app}: members track presence on their ${n.scopes}" on realtime.messages
  for insert to authenticated
  with check (realtime.messages.extension = 'presence'
              and (select private.may_join_list_topic((select realtime.topic()), true)));
`;
}
