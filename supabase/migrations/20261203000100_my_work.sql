-- My work (issue 39): repeating tasks whose next occurrence is made exactly once, and
-- checklists inside a task (product.md §3, §4, §6, §9; sync-design.md I7).
--
-- A repeating task carries its rule in `repeat`. Completing an occurrence makes the next one
-- on the device that completes it, with an id derived from the occurrence's own
-- (private.task_successor_id: every device derives the same one, offline, without talking to
-- the others) and `follows_id` naming the occurrence. Two devices completing the same
-- occurrence send the same insert: the second is a replay of the primary key (DUPLICATE,
-- applied as the server has it). The rules below refuse any other successor: an id that is
-- not the derived one, an occurrence of another list, and a second row following the same
-- occurrence (the unique follows_id).

-- ---------------------------------------------------------------------------------------
-- Repeat rules and successors on tasks.
-- ---------------------------------------------------------------------------------------

-- `daily`, `weekly:1,4` (ISO weekdays, Monday 1, ascending, each once), `monthly:15`,
-- `after:3` (days after completion, 1–365): src/data/schema.ts REPEAT_PATTERN.
create or replace function private.is_repeat_rule(rule text) returns boolean
language sql immutable strict set search_path = '' as $$
  select rule ~ '^(daily|weekly:[1-7](,[1-7]){0,6}|monthly:([1-9]|[12][0-9]|3[01])|after:([1-9]|[1-9][0-9]|[12][0-9][0-9]|3[0-5][0-9]|36[0-5]))$'
     and (rule !~ '^weekly:'
          or (select bool_and(d.day > coalesce(d.before, 0))
                from (select day::int, lag(day::int) over (order by ord) as before
                        from unnest(string_to_array(substr(rule, 8), ',')) with ordinality as u(day, ord)) d))
$$;

alter table public.tasks
  add column repeat text constraint tasks_repeat_check check (private.is_repeat_rule(repeat)),
  add column follows_id uuid constraint tasks_follows_id_key unique;

-- The id of the occurrence that follows `occurrence`: the first 16 bytes of
-- SHA-256('outpost:next:' || occurrence) as a version-8 UUID (RFC 9562), the same as
-- src/data/recurrence.ts successorId() computes on a device.
create or replace function private.task_successor_id(occurrence uuid) returns uuid
language sql immutable strict set search_path = '' as $$
  select (substr(h, 1, 12) || '8' || substr(h, 14, 3)
          || substr('89ab', (('x' || substr(h, 17, 1))::bit(4)::int & 3) + 1, 1)
          || substr(h, 18, 15))::uuid
  from (select encode(sha256(convert_to('outpost:next:' || occurrence::text, 'UTF8')), 'hex') as h) s
$$;

-- As before (…0100_security.sql), with the successor's rules: a task that follows another has
-- the derived id, is in that task's list (which is live), and keeps whom it follows.
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
    -- A second device's copy of a next occurrence the server has is left to its primary key
    -- (a replay, DUPLICATE), whatever has happened to the occurrence since.
    if new.follows_id is not null and not exists (select 1 from public.tasks where id = new.id) then
      if new.id is distinct from private.task_successor_id(new.follows_id)
         or not exists (select 1 from public.tasks t
                        where t.id = new.follows_id and t.list_id = new.list_id) then
        raise exception 'a task follows only an occurrence of its own list, with the id derived from it'
          using errcode = 'P0001', column = 'follows_id', hint = 'NOT_A_SUCCESSOR';
      end if;
      -- Completed on a device while deleted on another: the series ends with it.
      if exists (select 1 from public.tasks t
                 where t.id = new.follows_id and t.deleted_at is not null) then
        raise exception 'task % was deleted', new.follows_id using errcode = 'P0002', hint = 'NOT_FOUND';
      end if;
    end if;
  else
    perform private.assert_unchanged('tasks', 'list_id', new.list_id is distinct from old.list_id);
    perform private.assert_unchanged('tasks', 'created_by', new.created_by is distinct from old.created_by);
    perform private.assert_unchanged('tasks', 'follows_id', new.follows_id is distinct from old.follows_id);
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

-- ---------------------------------------------------------------------------------------
-- Checklist items: under a task, in its list; written by owners and editors as the task is.
-- ---------------------------------------------------------------------------------------
create table public.checklist_items (
  id uuid primary key default gen_random_uuid(),
  task_id uuid not null references public.tasks (id) on delete cascade,
  list_id uuid not null references public.lists (id) on delete cascade,
  text text not null check (char_length(text) between 1 and 500 and text !~ '^\s|\s$'),
  done boolean not null default false,
  position text collate "C" not null
    check (char_length(position) between 2 and 256 and position ~ '^[0-9A-Za-z]+$'),
  created_by uuid not null default auth.uid() references auth.users (id) on delete cascade,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz,
  version bigint not null default 1,
  sync_xid xid8 not null default pg_current_xact_id()
);
create index checklist_items_sync_idx on public.checklist_items (list_id, sync_xid, id);
create index checklist_items_task_idx on public.checklist_items (task_id);
revoke truncate on public.checklist_items from anon, authenticated;
-- In the realtime publication with the other synced tables (…_access.sql).
alter publication supabase_realtime add table public.checklist_items;

alter table public.checklist_items enable row level security;
create policy "checklist_items: members see" on public.checklist_items
  for select to authenticated
  using (list_id in (select private.my_list_ids()));
create policy "checklist_items: owners and editors add" on public.checklist_items
  for insert to authenticated
  with check (list_id in (select private.my_list_ids(array['owner', 'editor']))
              and created_by = (select auth.uid()));
create policy "checklist_items: owners and editors edit" on public.checklist_items
  for update to authenticated
  using (list_id in (select private.my_list_ids(array['owner', 'editor'])))
  with check (list_id in (select private.my_list_ids(array['owner', 'editor'])));

-- As before (…0100_security.sql), with checklist items: they belong to a live task of the
-- same list, as comments and attachments do, and a task has at most 100 live ones. An insert
-- of an id the table has is left to its primary key (a replay), before the task is checked.
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
    elsif tg_table_name = 'checklist_items' then
      perform private.assert_unchanged('checklist_items', 'created_by', new.created_by is distinct from old.created_by);
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

  -- A row the server has already (a checklist's copies, which every device completing the
  -- occurrence derives alike): its primary key answers, a replay, even under a task deleted since.
  if exists (select 1 from public.checklist_items where tg_table_name = 'checklist_items' and id = new.id)
     or exists (select 1 from public.comments where tg_table_name = 'comments' and id = new.id)
     or exists (select 1 from public.attachments where tg_table_name = 'attachments' and id = new.id) then
    return new;
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
  elsif tg_table_name = 'checklist_items' then
    if (select count(*) from public.checklist_items
        where task_id = new.task_id and deleted_at is null) >= 100 then
      raise exception 'a task has at most 100 checklist items'
        using errcode = 'P0001', hint = 'CHECKLIST_LIMIT';
    end if;
  end if;
  return new;
end
$$;

create trigger b_rules before insert or update on public.checklist_items
  for each row execute function private.task_children_before_write();

-- Deletes cascade to checklist items as to comments and attachments (…_rules.sql).
create or replace function private.lists_after_write() returns trigger
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
    update public.checklist_items set deleted_at = new.deleted_at
      where list_id = new.id and deleted_at is null;
  end if;
  return null;
end
$$;

create or replace function private.tasks_after_delete() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  update public.comments set deleted_at = new.deleted_at
    where task_id = new.id and deleted_at is null;
  update public.attachments set deleted_at = new.deleted_at
    where task_id = new.id and deleted_at is null;
  update public.checklist_items set deleted_at = new.deleted_at
    where task_id = new.id and deleted_at is null;
  return null;
end
$$;

-- ---------------------------------------------------------------------------------------
-- Sync: the generator's output for the new schema (sync/sql/generate.ts over
-- src/data/tables.ts), the parts it changes: the contract version, the registry, the stamp
-- and realtime triggers of checklist_items, and the realtime trigger's table list.
-- ---------------------------------------------------------------------------------------
create or replace function public.sync_schema_version() returns integer
language sql immutable as $$ select 2 $$;

delete from public.sync_registry where name not in ('profiles', 'lists', 'memberships', 'tasks', 'comments', 'attachments', 'checklist_items');
insert into public.sync_registry
  (name, scope, scope_column, insert_columns, patch_columns, deletable, depth)
values
  ('tasks', 'list', 'list_id', '{list_id,title,notes,status,priority,due_on,assignee_id,position,repeat,follows_id}', '{title,notes,status,priority,due_on,assignee_id,position,repeat}', true, 2),
  ('checklist_items', 'list', 'list_id', '{task_id,list_id,text,done,position}', '{text,done,position}', true, 3)
on conflict (name) do update
  set scope = excluded.scope, scope_column = excluded.scope_column,
      insert_columns = excluded.insert_columns, patch_columns = excluded.patch_columns,
      deletable = excluded.deletable, depth = excluded.depth;

create trigger a_sync_stamp before insert or update on public.checklist_items
  for each row execute function private.sync_stamp();
create or replace function private.realtime_send_row() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  payload jsonb := jsonb_build_object(
    'table', tg_table_name,
    'row', to_jsonb(new) - 'sync_xid' - 'granted_xid',
    'xid', new.sync_xid::text);
  topic text;
  member uuid;
begin
  if tg_table_name = 'lists' then
    perform realtime.send(payload, 'row', 'list:' || new.id::text || ':' || new.realtime_epoch::text, true);
    -- A new epoch: each member who stays hears of it on their own topic.
    if tg_op = 'UPDATE' and new.realtime_epoch <> old.realtime_epoch then
      for member in
        select m.user_id from public.memberships m
        where m.list_id = new.id and m.deleted_at is null
        order by m.user_id
      loop
        perform realtime.send(payload, 'row', 'user:' || member::text, true);
      end loop;
    end if;
  elsif tg_table_name = 'memberships' then
    perform realtime.send(payload, 'row', private.list_topic(new.list_id), true);
    perform realtime.send(payload, 'row', 'user:' || new.user_id::text, true);
  elsif tg_table_name in ('tasks', 'comments', 'attachments', 'checklist_items') then
    perform realtime.send(payload, 'row', private.list_topic(new.list_id), true);
  elsif tg_table_name = 'profiles' then
    for topic in
      select 'list:' || l.id::text || ':' || l.realtime_epoch::text
      from public.memberships m join public.lists l on l.id = m.list_id
      where m.user_id = new.id and m.deleted_at is null
      order by l.id
    loop
      perform realtime.send(payload, 'row', topic, true);
    end loop;
  end if;
  return null;
end
$$;

create trigger z_realtime_send after insert or update on public.checklist_items
  for each row execute function private.realtime_send_row();
