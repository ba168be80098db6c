-- Invite links (SPEC §3, §4, §7). Not synced and not visible to clients: the edge functions
-- create-invite / accept-invite call these SECURITY DEFINER functions with the service role,
-- passing the caller's verified user id. Only a SHA-256 of each token is stored.

create table public.invites (
  id uuid primary key default gen_random_uuid(),
  list_id uuid not null references public.lists (id) on delete cascade,
  role text not null check (role in ('editor', 'viewer')),
  token_hash text not null unique check (token_hash ~ '^[0-9a-f]{64}$'),
  created_by uuid not null references auth.users (id) on delete cascade,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null default now() + interval '7 days',
  accepted_by uuid references auth.users (id) on delete set null,
  accepted_at timestamptz,
  revoked_at timestamptz,
  check (expires_at > created_at),
  check ((accepted_by is null) = (accepted_at is null))
);
create index invites_list_idx on public.invites (list_id);
alter table public.invites enable row level security;
revoke all on public.invites from anon, authenticated;

-- Invite lifetime (SPEC §9).
create function private.invite_lifetime() returns interval
language sql immutable as $$ select interval '7 days' $$;

create function private.invite_token_hash(token text) returns text
language sql immutable set search_path = '' as $$
  select encode(sha256(convert_to(token, 'UTF8')), 'hex')
$$;

-- Owner `by_user` creates a single-use invite; returns the only copy of the plain token.
create function public.invite_create(list uuid, invite_role text, by_user uuid) returns jsonb
language plpgsql volatile security definer set search_path = '' as $$
declare
  token text := encode(extensions.gen_random_bytes(32), 'hex');
  invite public.invites;
begin
  if invite_role is null or invite_role not in ('editor', 'viewer') then
    return jsonb_build_object('error', 'VALIDATION_FAILED', 'message', 'role must be editor or viewer');
  end if;
  if not exists (select 1 from public.lists l where l.id = list and l.deleted_at is null) then
    return jsonb_build_object('error', 'NOT_FOUND', 'message', 'the list does not exist');
  end if;
  if not exists (select 1 from public.memberships m
                 where m.list_id = list and m.user_id = by_user and m.role = 'owner'
                   and m.deleted_at is null) then
    return jsonb_build_object('error', 'PERMISSION_DENIED', 'message', 'only an owner can invite');
  end if;
  insert into public.invites (list_id, role, token_hash, created_by, expires_at)
  values (list, invite_role, private.invite_token_hash(token), by_user, now() + private.invite_lifetime())
  returning * into invite;
  return jsonb_build_object('invite_id', invite.id, 'token', token, 'list_id', invite.list_id,
                            'role', invite.role, 'expires_at', invite.expires_at);
end
$$;

-- `by_user` accepts with a token: once, before expiry, unless revoked or already a member.
create function public.invite_accept(token text, by_user uuid) returns jsonb
language plpgsql volatile security definer set search_path = '' as $$
declare
  invite public.invites;
  list_live boolean;
  membership public.memberships;
begin
  select * into invite from public.invites i
    where i.token_hash = private.invite_token_hash(coalesce(token, '')) for update;
  if not found or invite.revoked_at is not null then
    return jsonb_build_object('error', 'INVITE_INVALID', 'message', 'This invite link is not valid.');
  end if;
  select l.deleted_at is null into list_live from public.lists l where l.id = invite.list_id;
  if not coalesce(list_live, false) then
    return jsonb_build_object('error', 'INVITE_INVALID', 'message', 'The list of this invite was deleted.');
  end if;
  if invite.accepted_at is not null then
    return jsonb_build_object('error', 'INVITE_USED', 'message', 'This invite link was already used.');
  end if;
  if invite.expires_at <= now() then
    return jsonb_build_object('error', 'INVITE_EXPIRED', 'message', 'This invite link has expired.');
  end if;
  if exists (select 1 from public.memberships m
             where m.list_id = invite.list_id and m.user_id = by_user and m.deleted_at is null) then
    return jsonb_build_object('error', 'ALREADY_MEMBER', 'message', 'You are already a member of this list.',
                              'list_id', invite.list_id);
  end if;

  begin
    -- A former member is re-granted on their old row (its tombstone is revived).
    insert into public.memberships (list_id, user_id, role)
    values (invite.list_id, by_user, invite.role)
    on conflict (list_id, user_id) do update set role = excluded.role, deleted_at = null
    returning * into membership;
  exception when sqlstate 'P0001' then
    return jsonb_build_object('error', 'VALIDATION_FAILED', 'message', sqlerrm);
  end;
  update public.invites set accepted_by = by_user, accepted_at = now() where id = invite.id;
  return jsonb_build_object('list_id', invite.list_id, 'role', invite.role,
                            'membership_id', membership.id);
end
$$;

-- Owner `by_user` revokes a pending invite.
create function public.invite_revoke(invite_id uuid, by_user uuid) returns jsonb
language plpgsql volatile security definer set search_path = '' as $$
declare
  invite public.invites;
begin
  select * into invite from public.invites i where i.id = invite_id for update;
  if not found then
    return jsonb_build_object('error', 'NOT_FOUND', 'message', 'no such invite');
  end if;
  if not exists (select 1 from public.memberships m
                 where m.list_id = invite.list_id and m.user_id = by_user and m.role = 'owner'
                   and m.deleted_at is null) then
    return jsonb_build_object('error', 'PERMISSION_DENIED', 'message', 'only an owner can revoke');
  end if;
  if invite.accepted_at is not null then
    return jsonb_build_object('error', 'INVITE_USED', 'message', 'This invite link was already used.');
  end if;
  update public.invites set revoked_at = coalesce(revoked_at, now()) where id = invite.id;
  return jsonb_build_object('invite_id', invite.id, 'revoked', true);
end
$$;

revoke execute on function public.invite_create(uuid, text, uuid), public.invite_accept(text, uuid),
  public.invite_revoke(uuid, uuid) from public, anon, authenticated;
grant execute on function public.invite_create(uuid, text, uuid), public.invite_accept(text, uuid),
  public.invite_revoke(uuid, uuid) to service_role;
