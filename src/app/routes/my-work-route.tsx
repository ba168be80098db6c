// /today, /upcoming, /assigned — My work's views, each row with the tasks feature's property
// chips (status, priority, due date, assignee), as on the task screen. The members and
// profiles the chips name are read once per list and once in all (shared live queries), not
// once per row: a view may show hundreds of rows.
import type { MyWorkRow } from '@/data/my-work-queries';
import { useSharedLiveQuery } from '@/data/use-shared-live-query';
import { attempt } from '@/data/writes';
import { toMember } from '@/hooks/use-members';
import { displayName } from '@/hooks/use-profiles';
import { useLocation } from '@/lib/router';
import { useServices } from '@/lib/services';
import { useSession } from '@/lib/session';
import { showToast } from '@/lib/toasts';

import { MyWorkScreen } from '@/features/my-work/components/my-work-screen';
import { viewAt } from '@/features/my-work/my-work-views';
import {
  PropertyChips,
  type Assignee,
  type PropertyChange,
} from '@/features/tasks/components/property-chips';
import '@/features/tasks/task-detail.css';

export function MyWorkRoute() {
  const view = viewAt(useLocation().pathname);
  // A view of its own per route: the tasks it keeps shown once done are that view's.
  return <MyWorkScreen key={view} view={view} Properties={RowProperties} />;
}

function RowProperties({ row, now }: { row: MyWorkRow; now: number }) {
  const { sync } = useServices();
  const { userId } = useSession();
  const { task, list } = row;
  const members = useSharedLiveQuery(
    sync.queries,
    `my-work-members:${list.id}:${userId}`,
    async () =>
      (await sync.queries.members(list.id))
        .map((member) => toMember(member, userId))
        .sort((a, b) => a.name.localeCompare(b.name) || (a.userId < b.userId ? -1 : 1)),
  );
  const profiles = useSharedLiveQuery(sync.queries, 'my-work-profiles', () =>
    sync.queries.profiles(),
  );
  const member = members?.find((each) => each.userId === task.assignee_id);
  const assignee: Assignee | null = !task.assignee_id
    ? null
    : member
      ? { id: member.userId, name: member.name, avatarPath: member.avatarPath, member: true }
      : {
          id: task.assignee_id,
          name: displayName(profiles ?? new Map(), task.assignee_id),
          avatarPath: null,
          // Unknown until the members have loaded: not called a former member meanwhile.
          member: members === undefined,
        };

  async function save(change: PropertyChange) {
    const result = await attempt(() => sync.repos.tasks.update(task.id, change));
    if (!result.ok) {
      const message = Object.values(result.errors).find(Boolean);
      showToast({ message: message ?? "Couldn't save the change.", tone: 'error' });
    }
  }

  return (
    <PropertyChips
      compact
      of={task.title}
      task={task}
      now={now}
      members={members ?? []}
      assignee={assignee}
      meId={userId}
      onChange={(_field, change) => void save(change)}
    />
  );
}
