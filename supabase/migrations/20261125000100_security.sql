-- Security hardening (issue 14, items 2–5). Earlier migrations may be deployed, so this one
-- replaces what it changes (functions by `create or replace`, policies dropped and made
-- again) and is written to run again on a database restored without its migration history.
--
-- 1. Memberships arrive only through an accepted invite (the SECURITY DEFINER invite_accept,
--    which the accept-invite edge function calls with the service role) and with a new list
--    (its creator's owner row, made by lists_after_write). A client inserting one directly,
--    by REST or through sync_push, is refused like any other RLS refusal.
-- 2. The server owns every column that says when, who, which version and which transaction:
--    for API callers `deleted_at` is stamped `now()` whatever value they send (a client says
--    "delete", never when), rows that clients do not delete (profiles) refuse it, and an
--    attachment's facts about its object (type, size, dimensions) never change.
-- 3. Sync bookkeeping (`sync_clients`, `sync_rejections`) is written only by sync_push, for
--    the caller's own clients, through SECURITY DEFINER helpers; clients may read their own
--    rows and nothing more. Recording a rejection can no longer fail, so a replayed or
--    forged rejection cannot wedge a device's queue.
-- 4. "Not yours" and "missing" answer alike: the rules triggers that run before RLS (BEFORE
--    triggers fire before a policy's WITH CHECK) first check that the caller may write to
--    the row's list, and refuse exactly as RLS does; a parent task in a list the caller
--    cannot see is "not found"; the invite functions answer a non-member as for a list or
--    invite that does not exist.

-- ---------------------------------------------------------------------------------------
-- Helpers
-- ---------------------------------------------------------------------------------------

-- Refuses an insert exactly as a failed RLS WITH CHECK does (same SQLSTATE, same words), so
-- that a rule checked first cannot be told apart from the policy.
create or replace function private.deny_insert(tbl text) returns void
language plpgsql set search_path = '' as $$
begin
  raise exception 'new row violates row-level security policy for table "%"', tbl
    using errcode = '42501';
end
$$;

-- ---------------------------------------------------------------------------------------
-- 1. Memberships only by invite (or with a new list).
-- ---------------------------------------------------------------------------------------
drop policy if exists "memberships: owners add" on public.memberships;

-- No INSERT policy is left for clients, but BEFORE triggers run ahead of RLS: without this
-- guard memberships_before_write would lock someone else's list and answer MEMBER_LIMIT for a
-- full one. Deliberately SECURITY INVOKER and keyed on current_user (not the request's role,
-- as is_client_role is): the server's own inserts run inside SECURITY DEFINER functions
-- (invite_accept, lists_after_write), where current_user is their owner even during an API
-- request, while a client's own INSERT runs as `anon` / `authenticated`.
create or replace function private.memberships_insert_guard() returns trigger
language plpgsql set search_path = '' as $$
begin
  if current_user::text in ('anon', 'authenticated') then
    perform private.deny_insert('memberships');
  end if;
  return new;
end
$$;

-- `a0_` sorts before `a_sync_stamp` and `b_rules`: triggers fire in name order.
drop trigger if exists a0_insert_guard on public.memberships;
create trigger a0_insert_guard before insert on public.memberships
  for each row execute function private.memberships_insert_guard();

-- ---------------------------------------------------------------------------------------
-- 2. Server-owned columns.
-- ---------------------------------------------------------------------------------------

-- Every write: bump version, stamp created_at, updated_at and sync_xid; for API callers also
-- deleted_at. Tombstones are final for clients (a patch to a deleted row is NOT_FOUND).
create or replace function private.sync_stamp() returns trigger
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

-- Profiles: a picture's path is the user's own folder of the public avatars bucket. The app
-- builds a URL from it, so `..` or another user's folder would point it anywhere.
create or replace function private.profiles_before_write() returns trigger
language plpgsql set search_path = '' as $$
begin
  if private.is_client_role() and new.avatar_path is not null
     and new.avatar_path is distinct from old.avatar_path
     and (new.avatar_path !~ ('^' || new.id::text || '/[A-Za-z0-9][A-Za-z0-9._-]*$')
          or new.avatar_path like '%..%') then
    raise exception 'avatar_path must be a file in the folder %/ of the avatars bucket', new.id
      using errcode = '23514', column = 'avatar_path';
  end if;
  return new;
end
$$;

drop trigger if exists b_rules on public.profiles;
create trigger b_rules before update on public.profiles
  for each row execute function private.profiles_before_write();

-- ---------------------------------------------------------------------------------------
-- 4. Rules that run before RLS check access first.
-- ---------------------------------------------------------------------------------------

-- tasks: a client that may not add tasks to the list is refused before the deleted-list and
-- assignee checks, which would otherwise tell a stranger whether a list was deleted or a
-- user is a member of it.
create or replace function private.tasks_before_write() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if tg_op = 'INSERT' then
    if private.is_client_role() and not private.has_list_role(new.list_id, array['owner', 'editor']) then
      perform private.deny_insert('tasks');
    end if;
    if exists (select 1 from public.lists where id = new.list_id and deleted_at is not null) then
      raise exception 'list % was deleted', new.list_id using errcode = 'P0002', hint = 'NOT_FOUND';
    end if;
  else
    perform private.assert_unchanged('tasks', 'list_id', new.list_id is distinct from old.list_id);
    perform private.assert_unchanged('tasks', 'created_by', new.created_by is distinct from old.created_by);
  end if;

  if new.status = 'done' then
    if tg_op = 'INSERT' or old.status <> 'done' or old.completed_at is null then
      new.completed_at := now();
    else
      new.completed_at := old.completed_at;
    end if;
  else
    new.completed_at := null;
  end if;

  if new.assignee_id is not null
     and (tg_op = 'INSERT' or new.assignee_id is distinct from old.assignee_id)
     and not exists (select 1 from public.memberships
                     where list_id = new.list_id and user_id = new.assignee_id
                       and deleted_at is null) then
    raise exception 'the assignee must be a member of the list'
      using errcode = 'P0001', column = 'assignee_id', hint = 'ASSIGNEE_NOT_MEMBER';
  end if;
  return new;
end
$$;

-- comments and attachments: belong to a live task of the same list. A client is first
-- refused as RLS would refuse it; then a task in a list the caller cannot see is "not
-- found", exactly like a task that does not exist (before, 23514 said "it exists
-- elsewhere"). Only a task of the caller's own lists is locked.
create or replace function private.task_children_before_write() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  client boolean := private.is_client_role();
  parent_list uuid;
  parent_deleted timestamptz;
begin
  if tg_op = 'UPDATE' then
    perform private.assert_unchanged(tg_table_name, 'task_id', new.task_id is distinct from old.task_id);
    perform private.assert_unchanged(tg_table_name, 'list_id', new.list_id is distinct from old.list_id);
    if tg_table_name = 'comments' then
      perform private.assert_unchanged('comments', 'author_id', new.author_id is distinct from old.author_id);
    else
      perform private.assert_unchanged('attachments', 'created_by', new.created_by is distinct from old.created_by);
      perform private.assert_unchanged('attachments', 'object_path', new.object_path is distinct from old.object_path);
      -- What the row says about its object is fixed when it is made: the app opens the
      -- bytes as mime_type, and the limits counted size_bytes.
      perform private.assert_unchanged('attachments', 'mime_type', new.mime_type is distinct from old.mime_type);
      perform private.assert_unchanged('attachments', 'size_bytes', new.size_bytes is distinct from old.size_bytes);
      perform private.assert_unchanged('attachments', 'width', new.width is distinct from old.width);
      perform private.assert_unchanged('attachments', 'height', new.height is distinct from old.height);
    end if;
    return new;
  end if;

  if client and not private.has_list_role(
       new.list_id, case when tg_table_name = 'comments' then null else array['owner', 'editor'] end) then
    perform private.deny_insert(tg_table_name);
  end if;

  select t.deleted_at into parent_deleted
    from public.tasks t where t.id = new.task_id and t.list_id = new.list_id for update;
  if not found then
    select t.list_id into parent_list from public.tasks t where t.id = new.task_id;
    if found and (not client or private.has_list_role(parent_list)) then
      raise exception 'list_id must be the list of task %', new.task_id
        using errcode = '23514', column = 'list_id';
    end if;
    raise exception 'task % was deleted', new.task_id using errcode = 'P0002', hint = 'NOT_FOUND';
  end if;
  if parent_deleted is not null then
    raise exception 'task % was deleted', new.task_id using errcode = 'P0002', hint = 'NOT_FOUND';
  end if;

  if tg_table_name = 'attachments' then
    if (select count(*) from public.attachments
        where task_id = new.task_id and deleted_at is null) >= 20 then
      raise exception 'a task has at most 20 attachments'
        using errcode = 'P0001', hint = 'ATTACHMENT_LIMIT';
    end if;
  end if;
  return new;
end
$$;

-- Invites: a caller who is not a member of the list (or of the invite's list) gets the
-- answer a missing list (or invite) gets; members who are not owners are told they may not.
create or replace function public.invite_create(list uuid, invite_role text, by_user uuid) returns jsonb
language plpgsql volatile security definer set search_path = '' as $$
declare
  token text := encode(extensions.gen_random_bytes(32), 'hex');
  invite public.invites;
  my_role text;
begin
  if invite_role is null or invite_role not in ('editor', 'viewer') then
    return jsonb_build_object('error', 'VALIDATION_FAILED', 'message', 'role must be editor or viewer');
  end if;
  select m.role into my_role from public.memberships m
    join public.lists l on l.id = m.list_id and l.deleted_at is null
    where m.list_id = list and m.user_id = by_user and m.deleted_at is null;
  if my_role is null then
    return jsonb_build_object('error', 'NOT_FOUND', 'message', 'the list does not exist');
  end if;
  if my_role <> 'owner' then
    return jsonb_build_object('error', 'PERMISSION_DENIED', 'message', 'only an owner can invite');
  end if;
  insert into public.invites (list_id, role, token_hash, created_by, expires_at)
  values (list, invite_role, private.invite_token_hash(token), by_user, now() + private.invite_lifetime())
  returning * into invite;
  return jsonb_build_object('invite_id', invite.id, 'token', token, 'list_id', invite.list_id,
                            'role', invite.role, 'expires_at', invite.expires_at);
end
$$;

create or replace function public.invite_revoke(invite_id uuid, by_user uuid) returns jsonb
language plpgsql volatile security definer set search_path = '' as $$
declare
  invite public.invites;
  my_role text;
begin
  select * into invite from public.invites i where i.id = invite_id for update;
  if found then
    select m.role into my_role from public.memberships m
      where m.list_id = invite.list_id and m.user_id = by_user and m.deleted_at is null;
  end if;
  if my_role is null then
    return jsonb_build_object('error', 'NOT_FOUND', 'message', 'no such invite');
  end if;
  if my_role <> 'owner' then
    return jsonb_build_object('error', 'PERMISSION_DENIED', 'message', 'only an owner can revoke');
  end if;
  if invite.accepted_at is not null then
    return jsonb_build_object('error', 'INVITE_USED', 'message', 'This invite link was already used.');
  end if;
  update public.invites set revoked_at = coalesce(revoked_at, now()) where id = invite.id;
  return jsonb_build_object('invite_id', invite.id, 'revoked', true);
end
$$;

-- ---------------------------------------------------------------------------------------
-- 3. Sync bookkeeping: written by sync_push only, for the caller's own clients.
-- ---------------------------------------------------------------------------------------
drop policy if exists "sync_clients: own" on public.sync_clients;
drop policy if exists "sync_clients: own, read only" on public.sync_clients;
create policy "sync_clients: own, read only" on public.sync_clients
  for select to authenticated using (user_id = (select auth.uid()));
revoke insert, update, delete, truncate on public.sync_clients from anon, authenticated;

drop policy if exists "sync_rejections: own" on public.sync_rejections;
drop policy if exists "sync_rejections: own, read only" on public.sync_rejections;
create policy "sync_rejections: own, read only" on public.sync_rejections
  for select to authenticated using (user_id = (select auth.uid()));
revoke insert, update, delete, truncate on public.sync_rejections from anon, authenticated;

-- Rows written directly before this migration: sync_push records a rejection only for its
-- caller's client and at a seq it then stores as applied, so anything else was forged.
delete from public.sync_rejections r
  using public.sync_clients c
  where c.id = r.client_id and (r.user_id is distinct from c.user_id or r.seq > c.last_seq);

-- No API role truncates (TRUNCATE skips RLS; PostgREST never sends one, but nothing else
-- should either).
revoke truncate on all tables in schema public from anon, authenticated;

-- The caller's client `the_client`, registered on first use and locked for this push (so
-- two pushes of one device apply in turn); its last applied seq. Another user's client id
-- is refused.
create or replace function private.sync_client_claim(the_client uuid) returns bigint
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

-- Stores how far the caller's client `the_client` got (never backwards).
create or replace function private.sync_client_done(the_client uuid, upto bigint) returns void
language plpgsql volatile security definer set search_path = '' as $$
begin
  update public.sync_clients c set last_seq = greatest(c.last_seq, upto), last_push_at = now()
    where c.id = the_client and c.user_id = auth.uid();
end
$$;

-- Remembers that the caller's client `the_client` had mutation `the_seq` refused, so a
-- replay answers the same. Cannot fail on a row already there (it is replaced): an error
-- here would fail the whole push, and every retry of it.
create or replace function private.sync_rejection_record(the_client uuid, the_seq bigint,
                                                        the_code text, the_message text)
returns void
language plpgsql volatile security definer set search_path = '' as $$
begin
  insert into public.sync_rejections (client_id, seq, user_id, code, message)
  select c.id, the_seq, c.user_id, the_code, the_message
    from public.sync_clients c where c.id = the_client and c.user_id = auth.uid()
  on conflict (client_id, seq) do update
    set user_id = excluded.user_id, code = excluded.code, message = excluded.message,
        created_at = now();
end
$$;

revoke execute on function private.sync_client_claim(uuid), private.sync_client_done(uuid, bigint),
  private.sync_rejection_record(uuid, bigint, text, text) from public, anon;
grant execute on function private.sync_client_claim(uuid), private.sync_client_done(uuid, bigint),
  private.sync_rejection_record(uuid, bigint, text, text) to authenticated;

-- sync_push as before (see …0400_sync.sql), with its bookkeeping through the helpers above.
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
      perform private.sync_rejection_record(the_client, m_seq, err_state, err_message);
      results := results || jsonb_build_array(private.sync_compact(jsonb_build_object(
        'seq', m_seq, 'status', 'rejected', 'code', err_state, 'message', err_message,
        'column', nullif(err_column, ''), 'hint', nullif(err_hint, ''),
        'row', private.sync_row(tbl, row_id))));
    end;
    applied_upto := m_seq;
  end loop;

  perform private.sync_client_done(the_client, applied_upto);
  return jsonb_build_object('last_seq', applied_upto, 'results', results);
end
$$;

-- Clients insert no memberships (1. above), so the registry names no insert columns for
-- them: sync_apply refuses such an insert up front (42501), as it does for profiles. The
-- client's registry (sync/outpost.ts) says the same; a test compares the two.
update public.sync_registry set insert_columns = '{}' where name = 'memberships';
