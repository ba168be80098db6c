-- Outpost's synced tables (SPEC §3) with every limit of SPEC §5/§9 as a constraint.
-- Every synced row: client-made uuid `id`, `created_at`, `updated_at`, `deleted_at`
-- (tombstone), `version` (bumped on every write) and `sync_xid` (the writing transaction's
-- id, which sync_pull pages by; see docs/architecture.md).

-- The eight palette keys a list colour may take (kept in step with sync/schema.ts).
create domain public.list_color as text
  check (value in ('slate', 'red', 'orange', 'yellow', 'green', 'teal', 'blue', 'purple'));

create table public.profiles (
  id uuid primary key references auth.users (id) on delete cascade,
  display_name text not null
    check (char_length(display_name) between 1 and 60 and display_name !~ '^\s|\s$'),
  avatar_path text check (avatar_path is null or char_length(avatar_path) between 1 and 1024),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz,
  version bigint not null default 1,
  sync_xid xid8 not null default pg_current_xact_id()
);

create table public.lists (
  id uuid primary key default gen_random_uuid(),
  name text not null check (char_length(name) between 1 and 80 and name !~ '^\s|\s$'),
  color public.list_color not null default 'blue',
  created_by uuid not null default auth.uid() references auth.users (id) on delete cascade,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz,
  version bigint not null default 1,
  sync_xid xid8 not null default pg_current_xact_id()
);

create table public.memberships (
  id uuid primary key default gen_random_uuid(),
  list_id uuid not null references public.lists (id) on delete cascade,
  user_id uuid not null references auth.users (id) on delete cascade,
  role text not null check (role in ('owner', 'editor', 'viewer')),
  -- When the user (re)gained access: sync_pull backfills the whole list from here.
  granted_xid xid8 not null default pg_current_xact_id(),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz,
  version bigint not null default 1,
  sync_xid xid8 not null default pg_current_xact_id(),
  unique (list_id, user_id)
);
create index memberships_user_idx on public.memberships (user_id, list_id);

create table public.tasks (
  id uuid primary key default gen_random_uuid(),
  list_id uuid not null references public.lists (id) on delete cascade,
  title text not null check (char_length(title) between 1 and 200 and title !~ '^\s|\s$'),
  notes text not null default '' check (char_length(notes) <= 10000),
  status text not null default 'todo' check (status in ('todo', 'doing', 'done')),
  priority smallint not null default 0 check (priority between 0 and 3),
  due_on date,
  assignee_id uuid references auth.users (id) on delete set null,
  -- fractional-indexing key: base-62 digits, compared bytewise like JavaScript strings.
  position text collate "C" not null
    check (char_length(position) between 2 and 256 and position ~ '^[0-9A-Za-z]+$'),
  completed_at timestamptz,
  created_by uuid not null default auth.uid() references auth.users (id) on delete cascade,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz,
  version bigint not null default 1,
  sync_xid xid8 not null default pg_current_xact_id(),
  check ((status = 'done') = (completed_at is not null))
);

create table public.comments (
  id uuid primary key default gen_random_uuid(),
  task_id uuid not null references public.tasks (id) on delete cascade,
  list_id uuid not null references public.lists (id) on delete cascade,
  author_id uuid not null default auth.uid() references auth.users (id) on delete cascade,
  body text not null check (char_length(body) between 1 and 4000 and body !~ '^\s|\s$'),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz,
  version bigint not null default 1,
  sync_xid xid8 not null default pg_current_xact_id()
);

create table public.attachments (
  id uuid primary key default gen_random_uuid(),
  task_id uuid not null references public.tasks (id) on delete cascade,
  list_id uuid not null references public.lists (id) on delete cascade,
  object_path text not null unique,
  file_name text not null check (char_length(file_name) between 1 and 255 and file_name !~ '[/\\]'),
  mime_type text not null
    check (mime_type in ('image/jpeg', 'image/png', 'image/webp', 'image/gif', 'application/pdf')),
  size_bytes bigint not null check (size_bytes between 1 and 10485760),
  width integer check (width is null or width between 1 and 100000),
  height integer check (height is null or height between 1 and 100000),
  created_by uuid not null default auth.uid() references auth.users (id) on delete cascade,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz,
  version bigint not null default 1,
  sync_xid xid8 not null default pg_current_xact_id(),
  -- {list_id}/{task_id}/{id}.{ext}: the storage policies key on the first segment.
  check (object_path ~ '\.[a-z0-9]{1,8}$'
         and object_path = list_id::text || '/' || task_id::text || '/' || id::text || '.'
                           || substring(object_path from '\.([a-z0-9]{1,8})$'))
);

-- sync_pull pages each list-scoped table by (list_id, sync_xid, id).
create index lists_sync_idx on public.lists (sync_xid, id);
create index memberships_sync_idx on public.memberships (list_id, sync_xid, id);
create index tasks_sync_idx on public.tasks (list_id, sync_xid, id);
create index comments_sync_idx on public.comments (list_id, sync_xid, id);
create index attachments_sync_idx on public.attachments (list_id, sync_xid, id);
create index profiles_sync_idx on public.profiles (id, sync_xid);
create index comments_task_idx on public.comments (task_id);
create index attachments_task_idx on public.attachments (task_id);
