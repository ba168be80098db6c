-- First part of the bootstrap (devstack/README.md): the roles hosted Supabase has, the
-- `extensions` schema on every role's search_path, and what the API roles may do in public.
-- Runs on PGlite and on a stock Postgres 15 as a superuser. Never deployed: hosted Supabase
-- provides all of devstack/bootstrap/ itself (supabase-wire.md §7).

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
