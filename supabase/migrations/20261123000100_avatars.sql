-- Profile pictures: a PUBLIC `avatars` bucket, objects at {user_id}/avatar-{ms}.{ext}.
-- Public, so the app computes an avatar's URL locally (no request, no signed URL) and browsers
-- and the service worker can cache it; only its owner may write under a user's folder.
-- Each upload gets a new name (the app then patches profiles.avatar_path), so a cached old
-- picture is never served for a new one.
insert into storage.buckets (id, name, public, file_size_limit, allowed_mime_types)
values ('avatars', 'avatars', true, 2097152,
        array['image/jpeg', 'image/png', 'image/webp', 'image/gif'])
on conflict (id) do update
  set public = excluded.public,
      file_size_limit = excluded.file_size_limit,
      allowed_mime_types = excluded.allowed_mime_types;

-- Dropped first so that re-running this file (a database restored without its migration
-- history) leaves exactly one copy of each policy.
drop policy if exists "outpost avatars: everyone reads" on storage.objects;
drop policy if exists "outpost avatars: owners upload" on storage.objects;
drop policy if exists "outpost avatars: owners replace" on storage.objects;
drop policy if exists "outpost avatars: owners remove" on storage.objects;

-- The bucket is public anyway (its objects are served without a token); the policy makes
-- the API's own reads (info, list, exists, and the lookups upsert does) agree with that.
create policy "outpost avatars: everyone reads" on storage.objects
  for select to anon, authenticated
  using (bucket_id = 'avatars');
create policy "outpost avatars: owners upload" on storage.objects
  for insert to authenticated
  with check (bucket_id = 'avatars'
              and (storage.foldername(name))[1] = (select auth.uid())::text);
create policy "outpost avatars: owners replace" on storage.objects
  for update to authenticated
  using (bucket_id = 'avatars'
         and (storage.foldername(name))[1] = (select auth.uid())::text)
  with check (bucket_id = 'avatars'
              and (storage.foldername(name))[1] = (select auth.uid())::text);
create policy "outpost avatars: owners remove" on storage.objects
  for delete to authenticated
  using (bucket_id = 'avatars'
         and (storage.foldername(name))[1] = (select auth.uid())::text);
