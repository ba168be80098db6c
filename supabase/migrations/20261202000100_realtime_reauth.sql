-- Realtime authorisation that holds after the join (issue 35). Until now a live member could
-- join `list:<id>:<any epoch>`: a viewer expecting removal pre-joined `<e+1>`, `<e+2>`, …, and
-- after the removal moved the list to `<e+1>` kept hearing every new row there until their
-- token expired. Presence had no epoch at all (`list:<id>:presence`), so a removed member kept
-- seeing and being seen. Now:
--   - data topic `list:<id>:<epoch>`: a live member, and only epochs the list has reached
--     (0 <= epoch <= lists.realtime_epoch); an old epoch only hears nothing new;
--   - presence topic `list:<id>:<epoch>:presence` (replaces `list:<id>:presence`, refused
--     from now on): read and track for a live member at the list's CURRENT epoch only, so
--     presence moves with the epoch: after a removal the members who stay re-join at the new
--     epoch, and a removed member left at the old one is alone there (and the devstack, which
--     re-checks joined channels when a membership changes, shuts that channel down);
--   - `user:<own id>` as before.
-- The decision is one SECURITY DEFINER helper, so the policies need no access to lists or
-- memberships under the caller's RLS. Like the migrations before it, this runs again on a
-- restored database.

-- Whether the caller may join `topic` as a list's data topic (`presence` false) or presence
-- topic (`presence` true). Any other shape is false, never a cast error: the topic is matched
-- whole before its parts are cast (the uuid lower-case, as uuid::text writes it; the epoch
-- without padding, at most 9 digits, so it fits an integer).
create or replace function private.may_join_list_topic(topic text, presence boolean) returns boolean
language plpgsql stable security definer set search_path = '' as $$
declare
  parts text[] := regexp_match(topic,
    '^list:([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}):(0|[1-9][0-9]{0,8})(:presence)?$');
begin
  if parts is null or presence is null or (parts[3] is not null) <> presence then
    return false;
  end if;
  return exists (
    select 1
    from public.memberships m
    join public.lists l on l.id = m.list_id
    where m.list_id = parts[1]::uuid
      and m.user_id = auth.uid()
      and m.deleted_at is null
      and case when presence then parts[2]::integer = l.realtime_epoch
               else parts[2]::integer <= l.realtime_epoch end);
end
$$;

-- As private.my_list_ids: policies run as the caller, so `authenticated` needs EXECUTE (its
-- answer is what a join would tell it anyway); nobody else does.
revoke execute on function private.may_join_list_topic(text, boolean) from public, anon;
grant execute on function private.may_join_list_topic(text, boolean) to authenticated;

-- The same three policies (same names), now through the helper.
drop policy if exists "outpost: members hear their lists, users their own topic"
  on realtime.messages;
create policy "outpost: members hear their lists, users their own topic" on realtime.messages
  for select to authenticated
  using (realtime.messages.extension = 'broadcast'
         and ((select private.may_join_list_topic((select realtime.topic()), false))
              or (select realtime.topic()) = 'user:' || (select auth.uid())::text));

drop policy if exists "outpost: members see presence on their lists" on realtime.messages;
create policy "outpost: members see presence on their lists" on realtime.messages
  for select to authenticated
  using (realtime.messages.extension = 'presence'
         and (select private.may_join_list_topic((select realtime.topic()), true)));

drop policy if exists "outpost: members track presence on their lists" on realtime.messages;
create policy "outpost: members track presence on their lists" on realtime.messages
  for insert to authenticated
  with check (realtime.messages.extension = 'presence'
              and (select private.may_join_list_topic((select realtime.topic()), true)));
