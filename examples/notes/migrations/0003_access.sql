-- Row-level security: only a folder's members see and write its rows. It uses the membership
-- helpers the generated 0002_sync.sql defines (private.my_list_ids(roles): the caller's live
-- folders, with one of `roles` when given). sync_push and sync_pull run as the caller, so
-- these policies are also what sync lets through. Rows are never hard-deleted by clients
-- (deletes are tombstones), so there is no DELETE policy.

alter table public.folders enable row level security;
alter table public.folder_members enable row level security;
alter table public.notes enable row level security;

create policy "folders: members see" on public.folders
  for select to authenticated
  using (id in (select private.my_list_ids()));
create policy "folders: anyone signed in creates their own" on public.folders
  for insert to authenticated
  with check (created_by = (select auth.uid()));
create policy "folders: owners rename and delete" on public.folders
  for update to authenticated
  using (id in (select private.my_list_ids(array['owner'])))
  with check (id in (select private.my_list_ids(array['owner'])));

-- Everyone sees their own membership, tombstone included: that is how losing a folder
-- reaches the device.
create policy "folder_members: members see the folder's members" on public.folder_members
  for select to authenticated
  using (user_id = (select auth.uid()) or folder_id in (select private.my_list_ids()));
create policy "folder_members: owners share" on public.folder_members
  for insert to authenticated
  with check (folder_id in (select private.my_list_ids(array['owner'])) and role = 'editor');
create policy "folder_members: owners manage, members leave" on public.folder_members
  for update to authenticated
  using (folder_id in (select private.my_list_ids(array['owner'])) or user_id = (select auth.uid()))
  with check (folder_id in (select private.my_list_ids(array['owner']))
              or user_id = (select auth.uid()));

create policy "notes: members see" on public.notes
  for select to authenticated
  using (folder_id in (select private.my_list_ids()));
create policy "notes: members write as themselves" on public.notes
  for insert to authenticated
  with check (folder_id in (select private.my_list_ids()) and created_by = (select auth.uid()));
create policy "notes: members edit" on public.notes
  for update to authenticated
  using (folder_id in (select private.my_list_ids()))
  with check (folder_id in (select private.my_list_ids()));
