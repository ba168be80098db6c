-- A removed member stops hearing their old list at once (issue 19). Hosted Realtime checks
-- read permission once per join and again only on a new access token, so a member removed
-- while joined to `list:<id>` kept hearing it for up to an hour with a client that does not
-- leave. Now a list's topic carries an epoch, `list:<id>:<epoch>`, and every removal (or
-- leave) moves the list to the next epoch in the same transaction: what is written after it
-- goes to a topic the removed member never joined and may not join (the policy below wants
-- a live membership). The members who stay learn the new epoch at once: the list's row,
-- whose `realtime_epoch` changed, is sent to each of their own `user:<id>` topics; their
-- devices join the new topic and pull what they missed while moving.
--
-- The contract …_realtime_deltas.sql states changes in one point: the list topic of a row is
-- `list:<list id>:<lists.realtime_epoch>` at the time of the write (presence keeps
-- `list:<id>:presence`). The lists row carries `realtime_epoch`, so sync_pull and the deltas
-- give devices the topic. Like the migrations before it, this one runs again on a restored
-- database.

alter table public.lists add column if not exists realtime_epoch integer not null default 0;

-- Only the database moves the epoch: a client's insert gets 0 and a client's update keeps
-- the old value (whatever it sends through PostgREST or sync_push). The bump below marks its
-- own update with a transaction-local setting no client can reach.
create or replace function private.lists_realtime_epoch_guard() returns trigger
language plpgsql set search_path = '' as $$
begin
  if coalesce(current_setting('outpost.realtime_epoch_bump', true), '') <> 'on' then
    if tg_op = 'INSERT' then
      new.realtime_epoch := 0;
    else
      new.realtime_epoch := old.realtime_epoch;
    end if;
  end if;
  return new;
end
$$;

drop trigger if exists b0_realtime_epoch on public.lists;
create trigger b0_realtime_epoch before insert or update on public.lists
  for each row execute function private.lists_realtime_epoch_guard();

-- A membership that stops being live (removed, or left) moves its list to the next epoch.
-- Runs before z_realtime_send (AFTER triggers fire in name order), so the tombstone itself
-- already goes to the new topic (and to the removed user's own topic).
create or replace function private.memberships_realtime_epoch() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if old.deleted_at is null and new.deleted_at is not null then
    perform set_config('outpost.realtime_epoch_bump', 'on', true);
    update public.lists set realtime_epoch = realtime_epoch + 1
      where id = new.list_id and deleted_at is null;
    perform set_config('outpost.realtime_epoch_bump', '', true);
  end if;
  return null;
end
$$;

drop trigger if exists c_realtime_epoch on public.memberships;
create trigger c_realtime_epoch after update of deleted_at on public.memberships
  for each row execute function private.memberships_realtime_epoch();

-- The topic a row of list `list` goes to now.
create or replace function private.list_topic(list uuid) returns text
language sql stable security definer set search_path = '' as $$
  select 'list:' || l.id::text || ':' || l.realtime_epoch::text from public.lists l where l.id = list
$$;

revoke execute on function private.list_topic(uuid) from public, anon, authenticated;

create or replace function private.realtime_send_row() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  payload jsonb := jsonb_build_object(
    'table', tg_table_name,
    'row', to_jsonb(new) - 'sync_xid' - 'granted_xid',
    'xid', new.sync_xid::text);
  topic text;
  member uuid;
begin
  if tg_table_name = 'lists' then
    perform realtime.send(payload, 'row', 'list:' || new.id::text || ':' || new.realtime_epoch::text, true);
    -- A new epoch: each member who stays hears of it on their own topic.
    if tg_op = 'UPDATE' and new.realtime_epoch <> old.realtime_epoch then
      for member in
        select m.user_id from public.memberships m
        where m.list_id = new.id and m.deleted_at is null
        order by m.user_id
      loop
        perform realtime.send(payload, 'row', 'user:' || member::text, true);
      end loop;
    end if;
  elsif tg_table_name = 'memberships' then
    perform realtime.send(payload, 'row', private.list_topic(new.list_id), true);
    perform realtime.send(payload, 'row', 'user:' || new.user_id::text, true);
  elsif tg_table_name in ('tasks', 'comments', 'attachments') then
    perform realtime.send(payload, 'row', private.list_topic(new.list_id), true);
  elsif tg_table_name = 'profiles' then
    for topic in
      select 'list:' || l.id::text || ':' || l.realtime_epoch::text
      from public.memberships m join public.lists l on l.id = m.list_id
      where m.user_id = new.id and m.deleted_at is null
      order by l.id
    loop
      perform realtime.send(payload, 'row', topic, true);
    end loop;
  end if;
  return null;
end
$$;

-- Joining: `list:<id>:<epoch>` (any epoch: an old one only hears nothing new) for live
-- members, `user:<own id>`. The topic must be exactly that shape; anything else is refused.
drop policy if exists "outpost: members hear their lists, users their own topic"
  on realtime.messages;
create policy "outpost: members hear their lists, users their own topic" on realtime.messages
  for select to authenticated
  using (realtime.messages.extension = 'broadcast'
         and (((select realtime.topic()) ~ '^list:[0-9a-f-]{36}:(0|[1-9][0-9]{0,8})$'
               and split_part((select realtime.topic()), ':', 2) in
                   (select l::text from private.my_list_ids() l))
              or (select realtime.topic()) = 'user:' || (select auth.uid())::text));
