-- What a hosted Supabase project already has before our migrations run: roles, the
-- `extensions`, `auth` and `storage` schemas with the tables and functions migrations
-- reference, and the `supabase_realtime` publication. Faithful to supabase/postgres and the
-- auth/storage migrations (see supabase-wire.md §7), trimmed to what a
-- project's own SQL can see. Runs on PGlite and on a stock Postgres 15 as a superuser.
-- Never deployed: hosted Supabase provides all of this itself.

-- Roles are cluster-wide, so a second database on the same Postgres cluster must not fail.
do $$
declare
  r text;
begin
  foreach r in array array['anon', 'authenticated', 'service_role'] loop
    if not exists (select 1 from pg_roles where rolname = r) then
      execute format('create role %I nologin noinherit', r);
    end if;
  end loop;
  if not exists (select 1 from pg_roles where rolname = 'authenticator') then
    create role authenticator login noinherit;
  end if;
  foreach r in array array['supabase_admin', 'supabase_auth_admin', 'supabase_storage_admin',
                           'dashboard_user', 'supabase_realtime_admin'] loop
    if not exists (select 1 from pg_roles where rolname = r) then
      execute format('create role %I nologin noinherit', r);
    end if;
  end loop;
end
$$;

alter role anon inherit;
alter role authenticated inherit;
alter role service_role inherit bypassrls;
grant anon, authenticated, service_role to authenticator;
alter role anon set statement_timeout = '3s';
alter role authenticated set statement_timeout = '8s';

create schema if not exists extensions;
create extension if not exists pgcrypto with schema extensions;
create extension if not exists "uuid-ossp" with schema extensions;
grant usage on schema extensions to anon, authenticated, service_role;
-- As on every Supabase database: `extensions` is on the search_path of role postgres, and by
-- the database's default of every other role (authenticator, anon, authenticated), so SQL
-- that calls gen_salt() or uuid_generate_v4() unqualified works in any new session.
do $$
begin
  if exists (select from pg_roles where rolname = 'postgres') then
    alter role postgres set search_path = "$user", public, extensions;
  end if;
  execute format('alter database %I set search_path = "$user", public, extensions',
                 current_database());
  -- Hosted loads pg_stat_statements, which computes query identifiers: verbose plans
  -- (PostgREST's application/vnd.pgrst.plan) show a "Query Identifier" line.
  execute format('alter database %I set compute_query_id = on', current_database());
  perform set_config('compute_query_id', 'on', false);
end
$$;
grant usage on schema public to anon, authenticated, service_role;
grant all on schema public to service_role;

alter default privileges in schema public grant all on tables to anon, authenticated, service_role;
alter default privileges in schema public grant all on functions to anon, authenticated, service_role;
alter default privileges in schema public grant all on sequences to anon, authenticated, service_role;

-- ---------------------------------------------------------------------------------------
-- auth
-- ---------------------------------------------------------------------------------------
create schema if not exists auth;
grant usage on schema auth to anon, authenticated, service_role;

create table auth.users (
  instance_id uuid,
  id uuid primary key,
  aud varchar(255),
  role varchar(255),
  email varchar(255),
  encrypted_password varchar(255),
  email_confirmed_at timestamptz,
  invited_at timestamptz,
  confirmation_token varchar(255),
  confirmation_sent_at timestamptz,
  recovery_token varchar(255),
  recovery_sent_at timestamptz,
  email_change_token_new varchar(255),
  email_change varchar(255),
  email_change_sent_at timestamptz,
  last_sign_in_at timestamptz,
  raw_app_meta_data jsonb,
  raw_user_meta_data jsonb,
  is_super_admin boolean,
  created_at timestamptz,
  updated_at timestamptz,
  phone text unique default null,
  phone_confirmed_at timestamptz,
  phone_change text default '',
  phone_change_token varchar(255) default '',
  phone_change_sent_at timestamptz,
  confirmed_at timestamptz generated always as (least(email_confirmed_at, phone_confirmed_at)) stored,
  email_change_token_current varchar(255) default '',
  email_change_confirm_status smallint default 0
    check (email_change_confirm_status >= 0 and email_change_confirm_status <= 2),
  banned_until timestamptz,
  reauthentication_token varchar(255) default '',
  reauthentication_sent_at timestamptz,
  is_sso_user boolean not null default false,
  deleted_at timestamptz,
  is_anonymous boolean not null default false
);
create unique index users_email_partial_key on auth.users (email) where (is_sso_user = false);
alter table auth.users enable row level security;

create table auth.identities (
  id uuid primary key default gen_random_uuid(),
  provider_id text not null,
  user_id uuid not null references auth.users (id) on delete cascade,
  identity_data jsonb not null,
  provider text not null,
  last_sign_in_at timestamptz,
  created_at timestamptz,
  updated_at timestamptz,
  email text generated always as (lower(identity_data ->> 'email')) stored,
  unique (provider_id, provider)
);
alter table auth.identities enable row level security;

create table auth.sessions (
  id uuid primary key,
  user_id uuid not null references auth.users (id) on delete cascade,
  created_at timestamptz,
  updated_at timestamptz,
  aal text,
  not_after timestamptz
);
alter table auth.sessions enable row level security;

create table auth.refresh_tokens (
  instance_id uuid,
  id bigserial primary key,
  token varchar(255) unique,
  user_id varchar(255),
  revoked boolean,
  created_at timestamptz,
  updated_at timestamptz,
  parent varchar(255),
  session_id uuid references auth.sessions (id) on delete cascade
);
alter table auth.refresh_tokens enable row level security;

create table auth.audit_log_entries (
  instance_id uuid,
  id uuid primary key,
  payload json,
  created_at timestamptz,
  ip_address varchar(64) not null default ''
);

create table auth.instances (
  id uuid primary key,
  uuid uuid,
  raw_base_config text,
  created_at timestamptz,
  updated_at timestamptz
);

create table auth.schema_migrations (version varchar(255) primary key);

-- As in supabase/auth: claims come from the request (set per transaction by the gateway).
create or replace function auth.jwt() returns jsonb
language sql stable as $$
  select coalesce(
    nullif(current_setting('request.jwt.claim', true), ''),
    nullif(current_setting('request.jwt.claims', true), '')
  )::jsonb
$$;

create or replace function auth.uid() returns uuid
language sql stable as $$
  select coalesce(
    nullif(current_setting('request.jwt.claim.sub', true), ''),
    (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'sub')
  )::uuid
$$;

create or replace function auth.role() returns text
language sql stable as $$
  select coalesce(
    nullif(current_setting('request.jwt.claim.role', true), ''),
    (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'role')
  )::text
$$;

create or replace function auth.email() returns text
language sql stable as $$
  select coalesce(
    nullif(current_setting('request.jwt.claim.email', true), ''),
    (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'email')
  )::text
$$;

grant execute on function auth.jwt(), auth.uid(), auth.role(), auth.email()
  to anon, authenticated, service_role;
grant all on all tables in schema auth to service_role;

-- ---------------------------------------------------------------------------------------
-- storage
-- ---------------------------------------------------------------------------------------
create schema if not exists storage;
grant usage on schema storage to anon, authenticated, service_role;
alter default privileges in schema storage grant all on tables to anon, authenticated, service_role;
alter default privileges in schema storage grant all on functions to anon, authenticated, service_role;
alter default privileges in schema storage grant all on sequences to anon, authenticated, service_role;

create type storage.buckettype as enum ('STANDARD', 'ANALYTICS');

create table storage.buckets (
  id text primary key,
  name text not null unique,
  owner uuid,
  owner_id text,
  public boolean default false,
  avif_autodetection boolean default false,
  file_size_limit bigint,
  allowed_mime_types text[],
  type storage.buckettype not null default 'STANDARD',
  created_at timestamptz default now(),
  updated_at timestamptz default now()
);
alter table storage.buckets enable row level security;

create table storage.objects (
  id uuid primary key default gen_random_uuid(),
  bucket_id text references storage.buckets (id),
  name text,
  owner uuid,
  owner_id text,
  metadata jsonb,
  user_metadata jsonb,
  version text,
  path_tokens text[] generated always as (string_to_array(name, '/')) stored,
  created_at timestamptz default now(),
  updated_at timestamptz default now(),
  last_accessed_at timestamptz default now()
);
create unique index bucketid_objname on storage.objects (bucket_id, name);
alter table storage.objects enable row level security;

grant all on storage.buckets, storage.objects to anon, authenticated, service_role;

create or replace function storage.foldername(name text) returns text[]
language plpgsql immutable as $$
declare
  _parts text[];
begin
  select string_to_array(name, '/') into _parts;
  return _parts[1:array_length(_parts, 1) - 1];
end
$$;

create or replace function storage.filename(name text) returns text
language plpgsql immutable as $$
declare
  _parts text[];
begin
  select string_to_array(name, '/') into _parts;
  return _parts[array_length(_parts, 1)];
end
$$;

create or replace function storage.extension(name text) returns text
language plpgsql immutable as $$
declare
  _parts text[];
  _filename text;
begin
  select string_to_array(name, '/') into _parts;
  select _parts[array_length(_parts, 1)] into _filename;
  return reverse(split_part(reverse(_filename), '.', 1));
end
$$;

-- ---------------------------------------------------------------------------------------
-- realtime
-- ---------------------------------------------------------------------------------------
-- Everything from here on is re-runnable: database.ts runs this section again on an older
-- database that lacks realtime.messages (a persistent .devstack/ data dir from before it).
do $$
begin
  if not exists (select 1 from pg_publication where pubname = 'supabase_realtime') then
    create publication supabase_realtime;
  end if;
end
$$;

-- Realtime Authorization and broadcast from the database, as the Realtime server's
-- migrations create them. Hosted partitions realtime.messages by day and drops partitions
-- after 3 days; here it is one plain table and the devstack deletes rows older than 3 days.
create schema if not exists realtime;
grant usage on schema realtime to anon, authenticated, service_role, supabase_realtime_admin;

create table if not exists realtime.messages (
  topic text not null,
  extension text not null,
  payload jsonb,
  event text,
  private boolean default false,
  updated_at timestamp without time zone default now() not null,
  inserted_at timestamp without time zone default now() not null,
  id uuid default gen_random_uuid() not null,
  constraint messages_pkey primary key (id, inserted_at)
);
create index if not exists messages_inserted_at_topic_index
  on realtime.messages (inserted_at desc, topic)
  where extension = 'broadcast' and private is true;
alter table realtime.messages owner to supabase_realtime_admin;
-- No policies: anon and authenticated see and write nothing until a project adds some.
alter table realtime.messages enable row level security;
grant select, insert, update on realtime.messages to anon, authenticated, service_role;

create or replace function realtime.topic() returns text
language sql stable as $$
select nullif(current_setting('realtime.topic', true), '')::text;
$$;

create or replace function realtime.send(payload jsonb, event text, topic text, private boolean default true)
returns void
language plpgsql as $$
declare
  generated_id uuid;
  final_payload jsonb;
begin
  begin
    generated_id := gen_random_uuid();
    if payload ? 'id' then
      final_payload := payload;
    else
      final_payload := jsonb_set(payload, '{id}', to_jsonb(generated_id));
    end if;
    execute format('SET LOCAL realtime.topic TO %L', topic);
    insert into realtime.messages (id, payload, event, topic, private, extension)
    values (generated_id, final_payload, event, topic, private, 'broadcast');
  exception
    when others then
      raise warning 'ErrorSendingBroadcastMessage: %', sqlerrm;
  end;
end;
$$;

create or replace function realtime.broadcast_changes(
  topic_name text, event_name text, operation text, table_name text, table_schema text,
  new record, old record, level text default 'ROW'::text
) returns void
language plpgsql as $$
declare
  row_data jsonb := '{}'::jsonb;
begin
  if level = 'STATEMENT' then
    raise exception 'function can only be triggered for each row, not for each statement';
  end if;
  if operation = 'INSERT' or operation = 'UPDATE' or operation = 'DELETE' then
    row_data := jsonb_build_object('old_record', old, 'record', new, 'operation', operation,
                                   'table', table_name, 'schema', table_schema);
    perform realtime.send(row_data, event_name, topic_name);
  else
    raise exception 'Unexpected operation type: %', operation;
  end if;
exception
  when others then
    raise exception 'Failed to process the row: %', sqlerrm;
end;
$$;

alter function realtime.topic() owner to supabase_realtime_admin;
alter function realtime.send(jsonb, text, text, boolean) owner to supabase_realtime_admin;
alter function realtime.broadcast_changes(text, text, text, text, text, record, record, text)
  owner to supabase_realtime_admin;
grant all on all functions in schema realtime to supabase_realtime_admin;

-- Hosted's `postgres` (not a superuser there) gets the rest of the table; a stock cluster may
-- have no role of that name.
do $$
begin
  if exists (select 1 from pg_roles where rolname = 'postgres') then
    grant usage on schema realtime to postgres;
    grant all on realtime.messages to postgres;
    grant all on all functions in schema realtime to postgres;
  end if;
  if exists (select 1 from pg_roles where rolname = 'dashboard_user') then
    grant all on all functions in schema realtime to dashboard_user;
  end if;
end
$$;

-- MFA as GoTrue keeps it (re-runnable: a .devstack/ data dir from before it gets it too):
-- a user's factors, each factor's challenges, and the methods a session was authenticated
-- with (its amr claim; a TOTP or phone entry makes it aal2). devstack/auth/mfa.ts.
do $$
begin
  if not exists (select 1 from pg_type where typname = 'factor_type'
                 and typnamespace = 'auth'::regnamespace) then
    create type auth.factor_type as enum ('totp', 'webauthn', 'phone');
  end if;
  if not exists (select 1 from pg_type where typname = 'factor_status'
                 and typnamespace = 'auth'::regnamespace) then
    create type auth.factor_status as enum ('unverified', 'verified');
  end if;
end
$$;
alter table auth.sessions add column if not exists factor_id uuid;
create table if not exists auth.mfa_factors (
  id uuid primary key,
  user_id uuid not null references auth.users (id) on delete cascade,
  friendly_name text,
  factor_type auth.factor_type not null,
  status auth.factor_status not null,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  secret text,
  phone text,
  last_challenged_at timestamptz
);
create unique index if not exists mfa_factors_user_friendly_name_unique on auth.mfa_factors
  (friendly_name, user_id) where trim(friendly_name) <> '';
alter table auth.mfa_factors enable row level security;

create table if not exists auth.mfa_challenges (
  id uuid primary key,
  factor_id uuid not null references auth.mfa_factors (id) on delete cascade,
  created_at timestamptz not null,
  verified_at timestamptz,
  ip_address text not null,
  otp_code text
);
alter table auth.mfa_challenges enable row level security;

create table if not exists auth.mfa_amr_claims (
  session_id uuid not null references auth.sessions (id) on delete cascade,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  authentication_method text not null,
  id uuid primary key,
  constraint mfa_amr_claims_session_id_authentication_method_pkey
    unique (session_id, authentication_method)
);
alter table auth.mfa_amr_claims enable row level security;
grant all on auth.mfa_factors, auth.mfa_challenges, auth.mfa_amr_claims to service_role;

-- WebAuthn as GoTrue keeps it (re-runnable, like the MFA tables above): a WebAuthn MFA
-- factor's credential and its challenges' session data (devstack/auth/mfa-webauthn.ts), and
-- passkeys with their one-use challenges (devstack/auth/passkeys.ts).
alter table auth.mfa_factors add column if not exists web_authn_credential jsonb;
alter table auth.mfa_factors add column if not exists web_authn_aaguid uuid;
alter table auth.mfa_factors add column if not exists last_webauthn_challenge_data jsonb;
alter table auth.mfa_challenges add column if not exists web_authn_session_data jsonb;
create table if not exists auth.webauthn_credentials (
  id uuid primary key,
  user_id uuid not null references auth.users (id) on delete cascade,
  credential_id bytea not null,
  public_key bytea not null,
  attestation_type text not null default '',
  aaguid uuid,
  sign_count bigint not null default 0,
  transports jsonb not null default '[]'::jsonb,
  backup_eligible boolean not null default false,
  backed_up boolean not null default false,
  friendly_name text not null default '',
  created_at timestamptz not null,
  updated_at timestamptz not null,
  last_used_at timestamptz
);
create unique index if not exists webauthn_credentials_credential_id_key
  on auth.webauthn_credentials (credential_id);
create index if not exists webauthn_credentials_user_id_idx
  on auth.webauthn_credentials (user_id);
alter table auth.webauthn_credentials enable row level security;
create table if not exists auth.webauthn_challenges (
  id uuid primary key,
  user_id uuid references auth.users (id) on delete cascade,
  challenge_type text not null
    check (challenge_type in ('signup', 'registration', 'authentication')),
  session_data jsonb not null,
  created_at timestamptz not null,
  expires_at timestamptz not null
);
create index if not exists webauthn_challenges_user_id_idx on auth.webauthn_challenges (user_id);
alter table auth.webauthn_challenges enable row level security;
grant all on auth.webauthn_credentials, auth.webauthn_challenges to service_role;

-- The OAuth 2.1 server's clients as GoTrue keeps them (re-runnable, like the tables above):
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
