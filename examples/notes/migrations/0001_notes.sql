-- The notes app's tables. Every synced table has a client-made uuid `id` and the sync columns
-- (created_at, updated_at, deleted_at, version, sync_xid: 0002_sync.sql adds any missing);
-- the membership table also `granted_xid`, when the member (re)gained the folder.

create table public.folders (
  id uuid primary key default gen_random_uuid(),
  name text not null check (char_length(name) between 1 and 80),
  created_by uuid not null default auth.uid() references auth.users (id) on delete cascade,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz,
  version bigint not null default 1,
  sync_xid xid8 not null default pg_current_xact_id()
);

create table public.folder_members (
  id uuid primary key default gen_random_uuid(),
  folder_id uuid not null references public.folders (id) on delete cascade,
  user_id uuid not null references auth.users (id) on delete cascade,
  role text not null default 'editor' check (role in ('owner', 'editor')),
  granted_xid xid8 not null default pg_current_xact_id(),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz,
  version bigint not null default 1,
  sync_xid xid8 not null default pg_current_xact_id(),
  unique (folder_id, user_id)
);

create table public.notes (
  id uuid primary key default gen_random_uuid(),
  folder_id uuid not null references public.folders (id) on delete cascade,
  title text not null check (char_length(title) between 1 and 200),
  body text not null default '' check (char_length(body) <= 10000),
  created_by uuid not null default auth.uid() references auth.users (id) on delete cascade,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz,
  version bigint not null default 1,
  sync_xid xid8 not null default pg_current_xact_id()
);

-- The app's own rules live in `private`, which the API does not expose.
create schema if not exists private;

-- The creator of a folder is its owner: the server makes that membership (like Outpost's
-- lists), and a deleted folder takes its notes with it (sync carries the tombstones).
create function private.folders_after_write() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if tg_op = 'INSERT' then
    insert into public.folder_members (folder_id, user_id, role)
    values (new.id, new.created_by, 'owner');
  elsif new.deleted_at is not null and old.deleted_at is null then
    update public.notes set deleted_at = new.deleted_at
      where folder_id = new.id and deleted_at is null;
  end if;
  return null;
end
$$;

create trigger c_after after insert or update on public.folders
  for each row execute function private.folders_after_write();
