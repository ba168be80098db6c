-- MFA and WebAuthn as GoTrue keeps them. Re-runnable, like realtime-schema.sql: a .devstack/
-- data dir from before them gets them too (database.ts).

-- MFA: a user's factors, each factor's challenges, and the methods a session was authenticated
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

-- WebAuthn: a WebAuthn MFA factor's credential and its challenges' session data
-- (devstack/auth/mfa-webauthn.ts), and passkeys with their one-use challenges
-- (devstack/auth/passkeys.ts).
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
