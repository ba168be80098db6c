// Members' writes (the Members screen): a member's role, removing a member, leaving a list,
// each keeping a list's last owner. Loaded by the repositories on first use, so the app
// shell does without them.
import type { Store, WriteContext } from '@sync/index';

import type { DeviceMembership, OutpostDeviceRows } from './rows';
import { roleInput, type Role } from './schema';
import { parse, ValidationError } from '@sync/index';

/** What the membership writes write with: the repositories' own pieces. */
export interface MembershipContext {
  store: Pick<Store<OutpostDeviceRows>, 'transaction' | 'live' | 'patch' | 'remove'>;
  rows: WriteContext<OutpostDeviceRows>['rows'];
  userId: () => string;
}

export function createMembershipWrites({ store, rows, userId }: MembershipContext) {
  async function isLastOwner(member: DeviceMembership): Promise<boolean> {
    if (member.role !== 'owner') return false;
    const members = await rows('memberships')
      .where('list_id')
      .equals(String(member.list_id))
      .toArray();
    return members.filter((m) => !m.deleted_at && m.role === 'owner').length <= 1;
  }

  const writes = {
    /** Gives a member another role (owners only; a list keeps at least one owner). */
    async changeRole(id: string, role: Role): Promise<void> {
      const value = parse(roleInput, role);
      await store.transaction(['memberships'], async () => {
        const member = await store.live('memberships', id);
        if (value !== 'owner' && (await isLastOwner(member))) {
          throw new ValidationError({ role: 'A list needs at least one owner.' });
        }
        await store.patch('memberships', id, { role: value }, member.list_id);
      });
    },
    /** Removes a member (owners only; RLS decides on the server). */
    remove(id: string): Promise<void> {
      return store.remove('memberships', id, async (member) => {
        if (await isLastOwner(member)) {
          throw new ValidationError({ _: 'A list needs at least one owner.' });
        }
      });
    },
    /** The current user leaves a list (not as its last owner). */
    async leave(listId: string): Promise<void> {
      const mine = (
        await rows('memberships').where('[list_id+user_id]').equals([listId, userId()]).toArray()
      ).find((m) => !m.deleted_at && !m._standIn);
      if (!mine)
        throw new ValidationError({ _: 'You are not a member of this list.' }, 'NOT_FOUND');
      await writes.remove(mine.id);
    },
  };
  return writes;
}
