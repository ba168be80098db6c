-- The OAuth 2.1 server's clients as GoTrue keeps them (re-runnable, like realtime-schema.sql):
-- redirect_uris and grant_types comma-joined, the secret as its SHA-256 (never the secret),
-- soft-deleted through deleted_at. devstack/auth/oauth-clients.ts.
do $$
begin
  if not exists (select 1 from pg_type where typname = 'oauth_registration_type'
                 and typnamespace = 'auth'::regnamespace) then
    create type auth.oauth_registration_type as enum ('dynamic', 'manual');
  end if;
  if not exists (select 1 from pg_type where typname = 'oauth_client_type'
                 and typnamespace = 'auth'::regnamespace) then
    create type auth.oauth_client_type as enum ('public', 'confidential');
  end if;
end
$$;
create table if not exists auth.oauth_clients (
  id uuid primary key,
  client_secret_hash text,
  registration_type auth.oauth_registration_type not null,
  redirect_uris text not null,
  grant_types text not null,
  client_name text check (char_length(client_name) <= 1024),
  client_uri text check (char_length(client_uri) <= 2048),
  logo_uri text check (char_length(logo_uri) <= 2048),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz,
  client_type auth.oauth_client_type not null default 'confidential',
  token_endpoint_auth_method text not null
    check (token_endpoint_auth_method in ('client_secret_basic', 'client_secret_post', 'none'))
);
create index if not exists oauth_clients_deleted_at_idx on auth.oauth_clients (deleted_at);
alter table auth.oauth_clients enable row level security;
grant all on auth.oauth_clients to service_role;
