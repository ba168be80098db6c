-- Server-side rules as triggers: stamping for sync, the rules of SPEC §3–§6 that a CHECK
-- cannot express, and the cascades. Client roles (`anon`, `authenticated`) are the ones the
-- rules police; SECURITY DEFINER functions and the service role act for the server.

-- Helpers, trigger functions and policy functions live in `private`, a schema the API does
-- not expose, so none of them is callable as an RPC. API roles may only use them.
create schema if not exists private;
grant usage on schema private to anon, authenticated, service_role;

-- True when the statement runs for an API caller rather than for the server itself. It reads
-- the role the API set for the request (PostgREST, storage and realtime all `set role`),
-- not current_user, which SECURITY DEFINER functions (cascades, invites) change.
create function private.is_client_role() returns boolean
language sql stable set search_path = '' as $$
  select coalesce(current_setting('role', true), 'none') in ('anon', 'authenticated')
$$;

-- Every write: bump version, stamp updated_at and sync_xid; created_at is the server's.
-- Tombstones are final for clients (a patch to a deleted row is NOT_FOUND).
create function private.sync_stamp() returns trigger
language plpgsql set search_path = '' as $$
begin
  if tg_op = 'INSERT' then
    new.version := 1;
    new.created_at := now();
    new.updated_at := now();
    new.deleted_at := null;
  else
    if old.deleted_at is not null and private.is_client_role() then
      raise exception '% row % was deleted', tg_table_name, old.id
        using errcode = 'P0002', hint = 'NOT_FOUND';
    end if;
    if new.id is distinct from old.id then
      raise exception 'id of % cannot change', tg_table_name using errcode = '22023';
    end if;
    new.version := old.version + 1;
    new.created_at := old.created_at;
    new.updated_at := now();
  end if;
  new.sync_xid := pg_current_xact_id();
  return new;
end
$$;

create trigger a_sync_stamp before insert or update on public.profiles
  for each row execute function private.sync_stamp();
create trigger a_sync_stamp before insert or update on public.lists
  for each row execute function private.sync_stamp();
create trigger a_sync_stamp before insert or update on public.memberships
  for each row execute function private.sync_stamp();
create trigger a_sync_stamp before insert or update on public.tasks
  for each row execute function private.sync_stamp();
create trigger a_sync_stamp before insert or update on public.comments
  for each row execute function private.sync_stamp();
create trigger a_sync_stamp before insert or update on public.attachments
  for each row execute function private.sync_stamp();

-- Raised when a client changes a column that only the server sets.
create function private.assert_unchanged(tbl text, col text, changed boolean) returns void
language plpgsql set search_path = '' as $$
begin
  if changed then
    raise exception 'column % of % cannot be changed', col, tbl
      using errcode = '42501', column = col;
  end if;
end
$$;

-- ---------------------------------------------------------------------------------------
-- profiles: one per auth user, made when the user is.
-- ---------------------------------------------------------------------------------------
create function private.handle_new_user() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  wanted text := btrim(coalesce(new.raw_user_meta_data ->> 'display_name',
                                new.raw_user_meta_data ->> 'name',
                                split_part(coalesce(new.email, ''), '@', 1)));
begin
  wanted := btrim(left(wanted, 60));
  insert into public.profiles (id, display_name)
  values (new.id, case when wanted = '' then 'Outpost user' else wanted end);
  return new;
end
$$;

create trigger on_auth_user_created after insert on auth.users
  for each row execute function private.handle_new_user();

-- ---------------------------------------------------------------------------------------
-- lists: the creator becomes the owner; only owners delete; deleting cascades.
-- ---------------------------------------------------------------------------------------
create function private.lists_before_write() returns trigger
language plpgsql set search_path = '' as $$
begin
  if tg_op = 'UPDATE' then
    perform private.assert_unchanged('lists', 'created_by', new.created_by is distinct from old.created_by);
    if new.deleted_at is distinct from old.deleted_at and private.is_client_role()
       and not private.has_list_role(old.id, array['owner']) then
      raise exception 'only an owner can delete list %', old.id using errcode = '42501';
    end if;
  end if;
  return new;
end
$$;

create trigger b_rules before insert or update on public.lists
  for each row execute function private.lists_before_write();

create function private.lists_after_write() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if tg_op = 'INSERT' then
    insert into public.memberships (list_id, user_id, role)
    values (new.id, new.created_by, 'owner');
  elsif new.deleted_at is not null and old.deleted_at is null then
    update public.tasks set deleted_at = new.deleted_at
      where list_id = new.id and deleted_at is null;
    update public.comments set deleted_at = new.deleted_at
      where list_id = new.id and deleted_at is null;
    update public.attachments set deleted_at = new.deleted_at
      where list_id = new.id and deleted_at is null;
  end if;
  return null;
end
$$;

create trigger c_after after insert or update on public.lists
  for each row execute function private.lists_after_write();

-- ---------------------------------------------------------------------------------------
-- memberships: ≤ 50 active per list; at least one owner; only owners change roles.
-- ---------------------------------------------------------------------------------------
create function private.memberships_before_write() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  active integer;
  client boolean := private.is_client_role();
begin
  -- Serialise membership changes of one list so the counts below cannot race.
  perform 1 from public.lists where id = new.list_id for update;

  if tg_op = 'INSERT' or (old.deleted_at is not null and new.deleted_at is null) then
    new.granted_xid := pg_current_xact_id();
    select count(*) into active from public.memberships
      where list_id = new.list_id and deleted_at is null and id <> new.id;
    if active >= 50 then
      raise exception 'a list has at most 50 members' using errcode = 'P0001', hint = 'MEMBER_LIMIT';
    end if;
    return new;
  end if;

  perform private.assert_unchanged('memberships', 'list_id', new.list_id is distinct from old.list_id);
  perform private.assert_unchanged('memberships', 'user_id', new.user_id is distinct from old.user_id);
  if new.granted_xid is distinct from old.granted_xid and client then
    new.granted_xid := old.granted_xid;
  end if;

  if client and not private.has_list_role(old.list_id, array['owner']) then
    -- A non-owner may only leave: soft-delete their own row and nothing else.
    if old.user_id <> auth.uid() or new.role is distinct from old.role then
      raise exception 'only an owner can change roles or remove members'
        using errcode = '42501';
    end if;
  end if;

  if old.role = 'owner' and old.deleted_at is null
     and (new.role <> 'owner' or new.deleted_at is not null) then
    if not exists (select 1 from public.memberships
                   where list_id = old.list_id and role = 'owner' and deleted_at is null
                     and id <> old.id) then
      raise exception 'a list must keep at least one owner' using errcode = 'P0001', hint = 'LAST_OWNER';
    end if;
  end if;
  return new;
end
$$;

create trigger b_rules before insert or update on public.memberships
  for each row execute function private.memberships_before_write();

-- ---------------------------------------------------------------------------------------
-- tasks: completed_at follows status; assignee is a member; children go with the task.
-- ---------------------------------------------------------------------------------------
create function private.tasks_before_write() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if tg_op = 'INSERT' then
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

create trigger b_rules before insert or update on public.tasks
  for each row execute function private.tasks_before_write();

create function private.tasks_after_delete() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  update public.comments set deleted_at = new.deleted_at
    where task_id = new.id and deleted_at is null;
  update public.attachments set deleted_at = new.deleted_at
    where task_id = new.id and deleted_at is null;
  return null;
end
$$;

create trigger c_after_delete after update of deleted_at on public.tasks
  for each row when (new.deleted_at is not null and old.deleted_at is null)
  execute function private.tasks_after_delete();

-- ---------------------------------------------------------------------------------------
-- comments and attachments: belong to a live task of the same list.
-- ---------------------------------------------------------------------------------------
create function private.task_children_before_write() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
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
    end if;
    return new;
  end if;

  select list_id, deleted_at into parent_list, parent_deleted
    from public.tasks where id = new.task_id for update;
  if not found or parent_deleted is not null then
    raise exception 'task % was deleted', new.task_id using errcode = 'P0002', hint = 'NOT_FOUND';
  end if;
  if parent_list <> new.list_id then
    raise exception 'list_id must be the list of task %', new.task_id
      using errcode = '23514', column = 'list_id';
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

create trigger b_rules before insert or update on public.comments
  for each row execute function private.task_children_before_write();
create trigger b_rules before insert or update on public.attachments
  for each row execute function private.task_children_before_write();
