// The realtime broadcast contract the sync engine's deltas rely on (sync-design.md "When
// sync runs"): every committed change of a synced row goes out as a `row` message on the
// private topic `list:<list id>` (and a membership also on `user:<its user>`), and only
// live members (or that user) may join. The migration ships it; a test database without
// it gets this stand-in, written to the same contract, so the engine's suites run either way.
import type { TestDevstack } from './devstack';

/** Whether the database already broadcasts synced rows (the shipped migration). */
async function shipped(stack: TestDevstack): Promise<boolean> {
  const { rows } = await stack.db.query<{ n: number }>(
    `select count(*)::int as n from pg_policies where schemaname = 'realtime' and tablename = 'messages'`,
  );
  return (rows[0]?.n ?? 0) > 0;
}

/** Installs the stand-in unless the migration is there; true when it installed it. */
export async function ensureRealtimeContract(stack: TestDevstack): Promise<boolean> {
  if (await shipped(stack)) return false;
  await stack.db.exec(`
    create function public.test_rt_row() returns trigger
    language plpgsql security definer set search_path = '' as $$
    declare
      msg jsonb := jsonb_build_object('table', tg_table_name,
        'row', to_jsonb(new) - 'sync_xid' - 'granted_xid', 'xid', new.sync_xid::text);
      l uuid;
    begin
      if tg_table_name = 'profiles' then
        for l in select m.list_id from public.memberships m
                 where m.user_id = new.id and m.deleted_at is null loop
          perform realtime.send(msg, 'row', 'list:' || l, true);
        end loop;
        return null;
      end if;
      if tg_table_name = 'lists' then
        perform realtime.send(msg, 'row', 'list:' || new.id, true);
      else
        perform realtime.send(msg, 'row', 'list:' || new.list_id, true);
      end if;
      if tg_table_name = 'memberships' then
        perform realtime.send(msg, 'row', 'user:' || new.user_id, true);
      end if;
      return null;
    end $$;
    create trigger test_rt_row after insert or update on public.profiles
      for each row execute function public.test_rt_row();
    create trigger test_rt_row after insert or update on public.lists
      for each row execute function public.test_rt_row();
    create trigger test_rt_row after insert or update on public.memberships
      for each row execute function public.test_rt_row();
    create trigger test_rt_row after insert or update on public.tasks
      for each row execute function public.test_rt_row();
    create trigger test_rt_row after insert or update on public.comments
      for each row execute function public.test_rt_row();
    create trigger test_rt_row after insert or update on public.attachments
      for each row execute function public.test_rt_row();
    create function public.test_rt_may_read(topic text) returns boolean
    language sql stable security definer set search_path = '' as $$
      select topic = 'user:' || auth.uid()::text
          or exists (select 1 from public.memberships m
                     where m.user_id = auth.uid() and m.deleted_at is null
                       and topic = 'list:' || m.list_id::text)
    $$;
    grant execute on function public.test_rt_may_read(text) to authenticated;
    create policy "test members read" on realtime.messages for select to authenticated
      using (realtime.messages.extension = 'broadcast'
             and public.test_rt_may_read((select realtime.topic())));
  `);
  return true;
}
