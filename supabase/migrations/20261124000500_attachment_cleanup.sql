-- Deleting an attachment removes its object (SYNC.md §Files), server side so it happens once.
-- SQL cannot do it: hosted storage forbids deleting from storage.objects directly (the row
-- would go and the file would stay in the object store), so objects are removed through the
-- Storage API by the `attachment-cleanup` edge function. Here is what tells it which: a
-- queue of object paths, filled by triggers in the same transaction as the delete, so a path
-- is queued exactly when its delete commits. The queue outlives the rows: a tombstone that
-- sync_purge_tombstones drops later leaves its path queued until the object is gone.
--
-- Written to run again on a database restored without its migration history: everything is
-- created if missing or replaced, and the backfill skips what is queued already.

create table if not exists private.attachment_cleanup (
  object_path text primary key,
  queued_at timestamptz not null default now(),
  -- Set while a cleanup run holds the path; a run that dies leaves it to expire.
  leased_until timestamptz,
  -- How many runs took the path (a path that keeps failing shows here).
  attempts integer not null default 0
);
create index if not exists attachment_cleanup_queued_idx
  on private.attachment_cleanup (queued_at, object_path);
-- `private` is not served by the API; no client role gets the table either.
alter table private.attachment_cleanup enable row level security;
revoke all on private.attachment_cleanup from public, anon, authenticated, service_role;

-- An attachment soft-deleted (by its own delete or a task's or list's cascade) queues its
-- object; one brought back before the cleanup ran (only the server can) is taken off again.
create or replace function private.attachments_queue_cleanup() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if tg_op = 'DELETE' then
    -- A live row hard-deleted (a deleted user's or a hard-deleted list's cascade).
    insert into private.attachment_cleanup (object_path) values (old.object_path)
      on conflict (object_path) do nothing;
    return null;
  end if;
  if new.deleted_at is not null then
    insert into private.attachment_cleanup (object_path) values (new.object_path)
      on conflict (object_path) do nothing;
  else
    delete from private.attachment_cleanup where object_path = old.object_path;
  end if;
  return null;
end
$$;

drop trigger if exists d_queue_cleanup on public.attachments;
create trigger d_queue_cleanup after update of deleted_at on public.attachments
  for each row when (new.deleted_at is distinct from old.deleted_at)
  execute function private.attachments_queue_cleanup();
-- Tombstones purged later were queued when they were deleted; only live rows are new here.
drop trigger if exists d_queue_cleanup_hard on public.attachments;
create trigger d_queue_cleanup_hard after delete on public.attachments
  for each row when (old.deleted_at is null)
  execute function private.attachments_queue_cleanup();

-- Attachments deleted before this migration: their objects were never removed.
insert into private.attachment_cleanup (object_path, queued_at)
select object_path, deleted_at from public.attachments where deleted_at is not null
on conflict (object_path) do nothing;

-- How long a run holds the paths it took. Longer than an edge function may run (hosted stops
-- one after 150 s, 400 s on paid plans), so a lease never ends while its run still works.
create or replace function private.attachment_cleanup_lease() returns interval
language sql immutable as $$ select interval '10 minutes' $$;

-- Leases up to `max_paths` (≤ 1,000, storage's limit per remove) queued paths, oldest first,
-- to the calling run. SKIP LOCKED: concurrent runs (every device pokes after a delete) take
-- disjoint batches without waiting on each other; the lease keeps them disjoint after this
-- transaction ends, while the run removes the objects.
create or replace function public.attachment_cleanup_take(max_paths integer default 1000)
returns text[]
language plpgsql volatile security definer set search_path = '' as $$
declare
  taken text[];
begin
  with batch as (
    select q.object_path from private.attachment_cleanup q
    where q.leased_until is null or q.leased_until < now()
    order by q.queued_at, q.object_path
    limit least(greatest(coalesce(max_paths, 1000), 1), 1000)
    for update skip locked
  ), leased as (
    update private.attachment_cleanup q
      set leased_until = now() + private.attachment_cleanup_lease(), attempts = q.attempts + 1
      from batch where q.object_path = batch.object_path
      returning q.object_path
  )
  select coalesce(array_agg(object_path order by object_path), '{}') into taken from leased;
  return taken;
end
$$;

-- Takes paths whose objects are gone off the queue (removing a missing object is not an
-- error, so a path removed twice is fine). Returns how many it took off.
create or replace function public.attachment_cleanup_done(paths text[]) returns integer
language plpgsql volatile security definer set search_path = '' as $$
declare
  n integer;
begin
  delete from private.attachment_cleanup where object_path = any (coalesce(paths, '{}'));
  get diagnostics n = row_count;
  return n;
end
$$;

revoke execute on function public.attachment_cleanup_take(integer) from public, anon, authenticated;
revoke execute on function public.attachment_cleanup_done(text[]) from public, anon, authenticated;
grant execute on function public.attachment_cleanup_take(integer) to service_role;
grant execute on function public.attachment_cleanup_done(text[]) to service_role;
