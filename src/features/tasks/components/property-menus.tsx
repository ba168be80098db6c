// The menus that change a task's status, priority and assignee: their items, words, icons and
// order in one place, for the chips of one task (property-chips.tsx) and the bulk bar's
// menus for many (bulk-bar.tsx). Each names its menu as the popover around it does
// ("Status") and hands back what was picked; the caller closes the popover and writes.
import { Menu } from '@/components/ui/menu';
import { PRIORITIES, STATUSES, canTransition, type Priority, type TaskStatus } from '@/data/schema';
import type { Member } from '@/hooks/use-members';

import { PRIORITY_LABELS, STATUS_LABELS } from '../task-filter';
import { PersonAvatar, PersonIcon, PriorityIcon, StatusIcon, type Person } from './property-icons';

/** Highest first, as people scan for what matters; "No priority" first, as the default. */
const PRIORITY_ORDER: readonly Priority[] = [0, ...[...PRIORITIES].filter((p) => p > 0).reverse()];

/** A priority in words: "No priority", "High". */
export function priorityText(priority: Priority): string {
  return priority === 0 ? 'No priority' : PRIORITY_LABELS[priority];
}

/** Someone a task still names who has left the list. */
export function formerMemberText(name: string): string {
  return `${name} (no longer a member)`;
}

/** Statuses in their natural order; with `from`, only those a task in it may move to. */
export function StatusMenu({
  selected,
  from,
  onPick,
}: {
  /** The status of every task it changes, checked; undefined when they differ. */
  selected: TaskStatus | undefined;
  /** One task's status, which limits the menu to the moves allowed from it. */
  from?: TaskStatus | undefined;
  onPick: (status: TaskStatus) => void;
}) {
  const statuses = STATUSES.filter((to) => from === undefined || canTransition(from, to));
  return (
    <Menu
      label="Status"
      selected={selected}
      items={statuses.map((each) => ({
        value: each,
        label: STATUS_LABELS[each],
        icon: <StatusIcon status={each} />,
      }))}
      onSelect={(value) => {
        const to = statuses.find((each) => each === value);
        if (to !== undefined) onPick(to);
      }}
    />
  );
}

/** Priorities, highest first after "No priority". */
export function PriorityMenu({
  selected,
  onPick,
}: {
  /** The priority of every task it changes, checked; undefined when they differ. */
  selected: Priority | undefined;
  onPick: (priority: Priority) => void;
}) {
  return (
    <Menu
      label="Priority"
      selected={selected === undefined ? undefined : String(selected)}
      items={PRIORITY_ORDER.map((each) => ({
        value: String(each),
        label: priorityText(each),
        icon: <PriorityIcon priority={each} />,
      }))}
      onSelect={(value) => {
        const to = PRIORITY_ORDER.find((each) => String(each) === value);
        if (to !== undefined) onPick(to);
      }}
    />
  );
}

/** "Unassigned", then the list's members (the signed-in user marked "(you)"). */
export function AssigneeMenu({
  selected,
  members,
  meId,
  former,
  onPick,
}: {
  /** The assignee of every task it changes (null: nobody), checked; undefined when they differ. */
  selected: string | null | undefined;
  members: readonly Member[];
  /** The signed-in user. */
  meId: string;
  /** A former member the task still names: shown last, not to be picked again. */
  former?: Person | null | undefined;
  onPick: (assigneeId: string | null) => void;
}) {
  return (
    <Menu
      label="Assignee"
      selected={selected === undefined ? undefined : (selected ?? '')}
      items={[
        { value: '', label: 'Unassigned', icon: <PersonIcon /> },
        ...members.map((member) => ({
          value: member.userId,
          label: member.userId === meId && member.named ? `${member.name} (you)` : member.name,
          icon: (
            <PersonAvatar
              person={{ id: member.userId, name: member.name, avatarPath: member.avatarPath }}
            />
          ),
        })),
        ...(former
          ? [
              {
                value: former.id,
                label: formerMemberText(former.name),
                icon: <PersonAvatar person={former} />,
                disabled: true,
              },
            ]
          : []),
      ]}
      onSelect={(value) => onPick(value || null)}
    />
  );
}
