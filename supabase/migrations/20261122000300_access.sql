-- Row-level security for the matrix of SPEC §6, the `attachments` storage bucket and its
-- policies, and the realtime publication. RLS is the only gate: sync_push and sync_pull run
-- as the caller (SECURITY INVOKER), so every rule here also governs sync.

-- The membership helpers are SECURITY DEFINER so policies on `memberships` can ask about
-- memberships without recursing into their own policy. They only reveal the caller's lists.
create function private.my_list_ids(roles text[] default null) returns setof uuid
language sql stable security definer set search_path = '' as $$
  select m.list_id
  from public.memberships m
  where m.user_id = auth.uid()
    and m.deleted_at is null
    and (roles is null or m.role = any (roles))
$$;

create function private.has_list_role(list uuid, roles text[] default null) returns boolean
language sql stable security definer set search_path = '' as $$
  select exists (
    select 1 from public.memberships m
    where m.list_id = list and m.user_id = auth.uid() and m.deleted_at is null
      and (roles is null or m.role = any (roles))
  )
$$;

-- Users who share at least one live list with the caller (whose profiles the caller sees).
create function private.co_member_ids() returns setof uuid
language sql stable security definer set search_path = '' as $$
  select distinct them.user_id
  from public.memberships me
  join public.memberships them on them.list_id = me.list_id and them.deleted_at is null
  where me.user_id = auth.uid() and me.deleted_at is null
$$;

revoke execute on function private.my_list_ids(text[]), private.has_list_role(uuid, text[]),
  private.co_member_ids() from public, anon;
grant execute on function private.my_list_ids(text[]), private.has_list_role(uuid, text[]),
  private.co_member_ids() to authenticated, service_role;

alter table public.profiles enable row level security;
alter table public.lists enable row level security;
alter table public.memberships enable row level security;
alter table public.tasks enable row level security;
alter table public.comments enable row level security;
alter table public.attachments enable row level security;

-- Rows are never hard-deleted by clients: deletes are tombstones that sync carries, so no
-- table has a DELETE policy. `anon` has no policy anywhere.

create policy "profiles: members see each other" on public.profiles
  for select to authenticated
  using (id = (select auth.uid()) or id in (select private.co_member_ids()));
create policy "profiles: a user edits their own" on public.profiles
  for update to authenticated
  using (id = (select auth.uid())) with check (id = (select auth.uid()));

create policy "lists: members see" on public.lists
  for select to authenticated
  using (id in (select private.my_list_ids()));
create policy "lists: anyone signed in creates their own" on public.lists
  for insert to authenticated
  with check (created_by = (select auth.uid()));
-- Rename/recolour: owner or editor. Deleting (setting deleted_at) is owner-only: see
-- lists_before_write, since a policy cannot tell columns apart.
create policy "lists: owners and editors edit" on public.lists
  for update to authenticated
  using (id in (select private.my_list_ids(array['owner', 'editor'])))
  with check (id in (select private.my_list_ids(array['owner', 'editor'])));

-- Everyone sees their own membership, tombstone included: that is how revocation reaches
-- the device.
create policy "memberships: members see the list's members" on public.memberships
  for select to authenticated
  using (user_id = (select auth.uid()) or list_id in (select private.my_list_ids()));
create policy "memberships: owners add" on public.memberships
  for insert to authenticated
  with check (list_id in (select private.my_list_ids(array['owner'])));
-- Owners change roles and remove; anyone may leave (memberships_before_write narrows a
-- non-owner to soft-deleting their own row and guards the last owner).
create policy "memberships: owners manage, members leave" on public.memberships
  for update to authenticated
  using (list_id in (select private.my_list_ids(array['owner'])) or user_id = (select auth.uid()))
  with check (list_id in (select private.my_list_ids(array['owner'])) or user_id = (select auth.uid()));

create policy "tasks: members see" on public.tasks
  for select to authenticated
  using (list_id in (select private.my_list_ids()));
create policy "tasks: owners and editors add" on public.tasks
  for insert to authenticated
  with check (list_id in (select private.my_list_ids(array['owner', 'editor']))
              and created_by = (select auth.uid()));
create policy "tasks: owners and editors edit" on public.tasks
  for update to authenticated
  using (list_id in (select private.my_list_ids(array['owner', 'editor'])))
  with check (list_id in (select private.my_list_ids(array['owner', 'editor'])));

create policy "attachments: members see" on public.attachments
  for select to authenticated
  using (list_id in (select private.my_list_ids()));
create policy "attachments: owners and editors add" on public.attachments
  for insert to authenticated
  with check (list_id in (select private.my_list_ids(array['owner', 'editor']))
              and created_by = (select auth.uid()));
create policy "attachments: owners and editors edit" on public.attachments
  for update to authenticated
  using (list_id in (select private.my_list_ids(array['owner', 'editor'])))
  with check (list_id in (select private.my_list_ids(array['owner', 'editor'])));

create policy "comments: members see" on public.comments
  for select to authenticated
  using (list_id in (select private.my_list_ids()));
create policy "comments: members comment as themselves" on public.comments
  for insert to authenticated
  with check (list_id in (select private.my_list_ids()) and author_id = (select auth.uid()));
-- Edit/delete: the author (while still a member), or any owner of the list.
create policy "comments: authors and owners edit" on public.comments
  for update to authenticated
  using ((author_id = (select auth.uid()) and list_id in (select private.my_list_ids()))
         or list_id in (select private.my_list_ids(array['owner'])))
  with check ((author_id = (select auth.uid()) and list_id in (select private.my_list_ids()))
              or list_id in (select private.my_list_ids(array['owner'])));

-- ---------------------------------------------------------------------------------------
-- Storage: private bucket, objects at {list_id}/{task_id}/{attachment_id}.{ext}.
-- ---------------------------------------------------------------------------------------
insert into storage.buckets (id, name, public, file_size_limit, allowed_mime_types)
values ('attachments', 'attachments', false, 10485760,
        array['image/jpeg', 'image/png', 'image/webp', 'image/gif', 'application/pdf'])
on conflict (id) do update
  set public = excluded.public,
      file_size_limit = excluded.file_size_limit,
      allowed_mime_types = excluded.allowed_mime_types;

create policy "outpost attachments: members read" on storage.objects
  for select to authenticated
  using (bucket_id = 'attachments'
         and (storage.foldername(name))[1] in (select l::text from private.my_list_ids() l));
create policy "outpost attachments: owners and editors upload" on storage.objects
  for insert to authenticated
  with check (bucket_id = 'attachments'
              and (storage.foldername(name))[1] in
                  (select l::text from private.my_list_ids(array['owner', 'editor']) l));
create policy "outpost attachments: owners and editors replace" on storage.objects
  for update to authenticated
  using (bucket_id = 'attachments'
         and (storage.foldername(name))[1] in
             (select l::text from private.my_list_ids(array['owner', 'editor']) l))
  with check (bucket_id = 'attachments'
              and (storage.foldername(name))[1] in
                  (select l::text from private.my_list_ids(array['owner', 'editor']) l));
create policy "outpost attachments: owners and editors remove" on storage.objects
  for delete to authenticated
  using (bucket_id = 'attachments'
         and (storage.foldername(name))[1] in
             (select l::text from private.my_list_ids(array['owner', 'editor']) l));

-- ---------------------------------------------------------------------------------------
-- Realtime: postgres_changes for the synced tables (RLS decides who hears what).
-- ---------------------------------------------------------------------------------------
alter publication supabase_realtime add table
  public.profiles, public.lists, public.memberships, public.tasks, public.comments,
  public.attachments;
