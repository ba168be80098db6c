-- Sync at scale (issue 16) and the size of an initial sync. Like the migrations before it,
-- this replaces what it changes (`create or replace`), so it runs again on a restored
-- database; sync/sql/templates.ts carries the same definitions.
--
-- 1. sync_scope found the caller's memberships with `m.user_id = auth.uid()`. Under RLS a
--    condition may become an index condition only if it is leakproof, or the planner could
--    leak rows the policies hide; auth.uid() (current_setting, ->>) is not, so Postgres
--    scanned every row of `memberships` and filtered it by the policy first. sync_pull
--    calls sync_scope once per branch (12 and more a page), so one user's pull grew with
--    everyone's lists: with the user in 50 lists, an incremental pull of 100 rows took
--    2.4× as long with 1M tasks in other people's lists as with 10k (20,100 memberships
--    scanned per call, tests/bench/sync-scale.bench.ts). `(select auth.uid())` is an
--    InitPlan whose value may be an index condition (the policies already use it that way):
--    the lookup is `memberships_user_idx`. The co-members' half joined the caller's
--    memberships to everyone's: a hash join over every live membership at 1M, and on a small
--    database (one membership per user in the statistics) a sequential scan of memberships
--    per list of the caller. Now it reads the live memberships of `list_id = any (array(<the
--    caller's live lists>))` (an index condition) and takes the caller's grant of each list
--    from a subquery on (list_id, user_id). Same rows; only the plans change.
--
-- 2. sync_pull answers a pull from scratch (null cursor) with `expected`: how many rows all
--    of its pages will deliver, counted once, on the first page, in the page's snapshot.
--    From a null cursor, branches A and B of a scope granted below the horizon together
--    return each of that scope's rows below the horizon exactly once, and a scope granted
--    at or after the horizon returns none; so the count is one index-only count per table:
--    rows of the caller's scopes below the horizon, under the same RLS as the page (and no
--    count at all when the first page is the whole pull: then it is that page's length).
--    Later pages (and any pull with a cursor) carry no `expected`.

create or replace function private.sync_scope(kind text) returns table (k uuid, g xid8)
language sql stable security invoker rows 20 set search_path = '' as $$
  -- (select auth.uid()) and the array below, not auth.uid() and a join: under RLS only
  -- leakproof conditions become index conditions; an InitPlan's value is one, auth.uid() is
  -- not. Co-members: the live members of the caller's live lists, each at the later grant.
  -- own memberships, tombstones included: a revoked member receives their tombstone
  select m.list_id, m.granted_xid from public.memberships m
  where kind = 'list' and m.user_id = (select auth.uid())
  union all
  (select distinct on (p.k) p.k, p.g from (
     select (select auth.uid()) as k, '0'::xid8 as g
     union all
     select them.user_id,
            greatest(them.granted_xid, (select me.granted_xid from public.memberships me
                                        where me.list_id = them.list_id
                                          and me.user_id = (select auth.uid())
                                          and me.deleted_at is null))
     from public.memberships them
     where them.deleted_at is null
       and them.list_id = any (array(
             select mine.list_id from public.memberships mine
             where mine.user_id = (select auth.uid()) and mine.deleted_at is null))
   ) p
   where kind = 'peer'
   order by p.k, p.g desc)
$$;

create or replace function public.sync_pull(cursor text default null, max_rows integer default 1000)
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
