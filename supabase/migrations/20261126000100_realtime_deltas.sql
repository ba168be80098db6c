-- Realtime deltas on private list channels (issue 19, the SQL half). Every committed change
-- of a synced row is broadcast from the database to the private Realtime topic of its list,
-- and Realtime Authorization (RLS on realtime.messages) lets only the people who may read
-- those rows join those topics. Pull stays the source of truth: a delta only saves a device
-- the round trip, and one it missed (socket down, message dropped) arrives with the next pull.
-- Like …0100_security.sql this replaces what it makes (functions by `create or replace`,
-- triggers and policies dropped and made again), so it runs again on a restored database.
--
-- The contract the client codes against (do not change it without the client):
--   event 'row', private true, payload
--     {"table": <table>, "row": to_jsonb(NEW) - 'sync_xid' - 'granted_xid', "xid": <sync_xid>,
--      "id": <message uuid, added by realtime.send>}
--   where `row` is exactly what sync_pull returns for the row (same keys, same version);
--   topics: `list:<list id>` for lists (their own id), memberships, tasks, comments and
--   attachments (their list_id); memberships also `user:<user_id>`; profiles `list:<id>` of
--   every list where that profile's user has a live membership.
--
-- Why each topic is safe (nothing is sent that a receiver could not read under the tables'
-- own RLS, …0300_access.sql and …0100_security.sql). A receiver of `list:L` is someone who,
-- when they joined, had a live membership of L (the SELECT policy below), and
--   - lists: "lists: members see" — members of L see L, tombstone included;
--   - memberships: "members see the list's members" — members of L see every membership row
--     of L, tombstones included;
--   - tasks, comments, attachments: "members see" — members of L see every row of L;
--   - profiles: "members see each other" — a user's profile is visible to everyone sharing a
--     live list with them; it goes only to lists where its user's membership is live, whose
--     live members are exactly those co-members.
-- A receiver of `user:U` is U alone (the policy compares with auth.uid()), and only U's own
-- memberships go there: "members see the list's members" lets everyone see their own
-- membership, tombstone included (that is how revocation reaches a device).
--
-- Hosted Realtime checks read permission once per join (and again on a new access token),
-- never per message. A member removed while joined keeps hearing `list:L` until their
-- client leaves the channel (it does so on the membership tombstone that reaches it on both
-- `list:L` and `user:U`) or refreshes its token, which makes Realtime ask again and close
-- the channel. That window carries only what they could read a moment before.

-- ---------------------------------------------------------------------------------------
-- 1. Sending: one message per committed row change, from the database only.
-- ---------------------------------------------------------------------------------------

-- SECURITY DEFINER so that realtime.send's INSERT into realtime.messages runs as this
-- function's owner, not as the API caller: clients have no INSERT policy for broadcast
-- (section 2), and realtime.send turns an RLS refusal into a WARNING, which would drop the
-- delta silently. It also reads memberships for a profile regardless of the caller's RLS.
-- Messages are rows of realtime.messages written in the caller's transaction, so one that
-- rolls back (a rejected mutation in sync_push rolls back to its savepoint) sends nothing.
create or replace function private.realtime_send_row() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  payload jsonb := jsonb_build_object(
    'table', tg_table_name,
    -- As sync_pull delivers it (…0400_sync.sql: to_jsonb(t) - 'sync_xid' - 'granted_xid').
    'row', to_jsonb(new) - 'sync_xid' - 'granted_xid',
    'xid', new.sync_xid::text);
  list uuid;
begin
  if tg_table_name = 'lists' then
    perform realtime.send(payload, 'row', 'list:' || new.id::text, true);
  elsif tg_table_name = 'memberships' then
    perform realtime.send(payload, 'row', 'list:' || new.list_id::text, true);
    perform realtime.send(payload, 'row', 'user:' || new.user_id::text, true);
  elsif tg_table_name in ('tasks', 'comments', 'attachments') then
    perform realtime.send(payload, 'row', 'list:' || new.list_id::text, true);
  elsif tg_table_name = 'profiles' then
    for list in
      select m.list_id from public.memberships m
      where m.user_id = new.id and m.deleted_at is null
      order by m.list_id
    loop
      perform realtime.send(payload, 'row', 'list:' || list::text, true);
    end loop;
  end if;
  return null;
end
$$;

-- After the row's own triggers (`a_sync_stamp`, `b_rules`, `c_after…`, `d_queue…`): `z_`
-- sorts last. NEW is the row as stored, whatever fires before. No DELETE: clients never
-- hard-delete, deletes are tombstones (UPDATEs); the purge of old tombstones sends nothing.
do $$
declare
  tbl text;
begin
  foreach tbl in array array['lists', 'memberships', 'tasks', 'comments', 'attachments', 'profiles']
  loop
    execute format('drop trigger if exists z_realtime_send on public.%I', tbl);
    execute format('create trigger z_realtime_send after insert or update on public.%I '
                   'for each row execute function private.realtime_send_row()', tbl);
  end loop;
end
$$;

-- ---------------------------------------------------------------------------------------
-- 2. Who may join: RLS on realtime.messages (Realtime Authorization).
-- ---------------------------------------------------------------------------------------
-- At join Realtime inserts probe rows holding only topic and extension (event and payload
-- NULL, private false), sets realtime.topic and the caller's role and claims, and selects
-- them back. So these policies look only at (select realtime.topic()), the row's extension
-- and auth.uid(), and compare topics as text: a malformed topic is simply not in the set,
-- never a cast error (which would refuse the join just the same, but logged as an error).
-- `to authenticated` only: anon gets nothing. private.my_list_ids() is the SECURITY DEFINER
-- helper of …0300_access.sql (live memberships of the caller).

-- Broadcast read: the list topics of the caller's live lists, and their own user topic.
drop policy if exists "outpost: members hear their lists, users their own topic"
  on realtime.messages;
create policy "outpost: members hear their lists, users their own topic" on realtime.messages
  for select to authenticated
  using (realtime.messages.extension = 'broadcast'
         and ((select realtime.topic()) in (select 'list:' || l::text from private.my_list_ids() l)
              or (select realtime.topic()) = 'user:' || (select auth.uid())::text));

-- Presence (who is looking at a list, product.md §7) lives on its own topic,
-- `list:<id>:presence`: realtime-js reuses one channel object per topic, and the app's
-- presence must not share (or leave) the sync engine's channel. Live members read and track.
drop policy if exists "outpost: members see presence on their lists" on realtime.messages;
create policy "outpost: members see presence on their lists" on realtime.messages
  for select to authenticated
  using (realtime.messages.extension = 'presence'
         and (select realtime.topic()) in
             (select 'list:' || l::text || ':presence' from private.my_list_ids() l));

drop policy if exists "outpost: members track presence on their lists" on realtime.messages;
create policy "outpost: members track presence on their lists" on realtime.messages
  for insert to authenticated
  with check (realtime.messages.extension = 'presence'
              and (select realtime.topic()) in
                  (select 'list:' || l::text || ':presence' from private.my_list_ids() l));

-- Deliberately NO insert policy for 'broadcast': only the database sends on `list:` and
-- `user:` topics. A client that could broadcast there could forge a row (any version, any
-- content) into every member's local store; Realtime drops a broadcast without write
-- permission silently, so a client that tries learns nothing either.
