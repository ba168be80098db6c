// How a task's properties are drawn: the status circle, the priority bars, the calendar and a
// person (their avatar, or an outline for nobody). One place for the chips of a task
// (property-chips.tsx) and the menus that both the chips and the bulk bar open
// (property-menus.tsx). Decorative: the buttons and menu items carry the words.
import { Avatar } from '@/components/ui/avatar';
import type { Priority, TaskStatus } from '@/data/schema';
import { useAvatarUrl } from '@/hooks/use-avatar-url';

/** Someone a task may name as its assignee, as an avatar draws them. */
export interface Person {
  id: string;
  name: string;
  avatarPath: string | null;
}

/** `named`: the avatar alone says who it is ("Assigned to Bob"), with no name beside it. */
export function PersonAvatar({ person, named = false }: { person: Person; named?: boolean }) {
  const src = useAvatarUrl(person.avatarPath);
  return (
    <Avatar
      id={person.id}
      name={named ? `Assigned to ${person.name}` : person.name}
      src={src}
      size={20}
      decorative={!named}
    />
  );
}

// Stroke, fill and joins are chip__icon's CSS (task-detail.css), not attributes: every row
// draws several, and each attribute is a DOM call on a list's first render.
const icon = {
  width: 16,
  height: 16,
  viewBox: '0 0 16 16',
  'aria-hidden': true,
  className: 'chip__icon',
} as const;

/** A circle: empty for "To do", half filled for "Doing", ticked for "Done". */
export function StatusIcon({ status }: { status: TaskStatus }) {
  return (
    <svg {...icon} data-status={status}>
      <circle cx="8" cy="8" r="6" />
      {status === 'doing' ? <path d="M8 2a6 6 0 0 1 0 12z" fill="currentColor" /> : null}
      {status === 'done' ? <path d="M5 8.2l2 2 4-4.2" /> : null}
    </svg>
  );
}

/** Three bars, as many filled as the priority is high; dashes for none. */
export function PriorityIcon({ priority }: { priority: Priority }) {
  if (priority === 0) {
    return (
      <svg {...icon}>
        <path d="M3 8h2M7 8h2M11 8h2" />
      </svg>
    );
  }
  // The bars up to the priority filled, the rest outlined: two paths, not three rects.
  const bar = (n: number) => `M${n * 4 - 2} ${13 - n * 3.5}h2.5v${n * 3.5}h-2.5z`;
  const bars = [1, 2, 3];
  return (
    <svg {...icon}>
      <path
        d={bars
          .filter((n) => n <= priority)
          .map(bar)
          .join('')}
        fill="currentColor"
        stroke="none"
      />
      {priority < 3 ? (
        <path
          d={bars
            .filter((n) => n > priority)
            .map(bar)
            .join('')}
          strokeWidth={1}
        />
      ) : null}
    </svg>
  );
}

/** A due date's chip, while it has none to show. */
export function CalendarIcon() {
  return (
    <svg {...icon}>
      <path d="M4 3.5h8a1.5 1.5 0 0 1 1.5 1.5v7a1.5 1.5 0 0 1-1.5 1.5h-8a1.5 1.5 0 0 1-1.5-1.5v-7a1.5 1.5 0 0 1 1.5-1.5zM2.5 6.5h11M5.5 2v3M10.5 2v3" />
    </svg>
  );
}

/** Nobody: an outline where an assignee's avatar would be. */
export function PersonIcon() {
  return (
    <svg {...icon}>
      <path d="M8 3a2.5 2.5 0 1 0 0 5a2.5 2.5 0 1 0 0-5zM3 14c0-2.8 2.2-4.5 5-4.5s5 1.7 5 4.5" />
    </svg>
  );
}
