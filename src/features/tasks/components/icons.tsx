// Small line icons for the task rows. Decorative: the buttons carry the names.
// Stroke, fill and joins are line-icon's CSS (tasks.css), not attributes: a list renders
// several icons per row, and each attribute is a DOM call on the screen's first render.
const common = {
  width: 18,
  height: 18,
  viewBox: '0 0 24 24',
  className: 'line-icon',
  'aria-hidden': true,
} as const;

/** Six dots: a drag handle. A CSS mask (tasks.css), one element: every row has one. */
export function GripIcon() {
  return <span className="mask-icon mask-icon--grip" aria-hidden="true" />;
}

/** A pencil: edit. A CSS mask (tasks.css), one element: every row has one. */
export function PencilIcon() {
  return <span className="mask-icon mask-icon--pencil" aria-hidden="true" />;
}

/** A bin: delete. A CSS mask (tasks.css), one element: every row has one. */
export function TrashIcon() {
  return <span className="mask-icon mask-icon--trash" aria-hidden="true" />;
}

/** "Not synced yet": a cloud with an up arrow (waiting to go up). */
export function CloudUpIcon() {
  return (
    <svg {...common} width={14} height={14}>
      <path d="M7 18a4.5 4.5 0 0 1-.5-9 6 6 0 0 1 11.5 1.5A3.75 3.75 0 0 1 17.5 18" />
      <path d="M12 20v-7M9.5 15.5 12 13l2.5 2.5" />
    </svg>
  );
}

/** Members: two people. */
export function PeopleIcon() {
  return (
    <svg {...common} width={16} height={16}>
      <circle cx="9" cy="8" r="3.5" />
      <path d="M2.5 20c0-3.6 2.9-6.5 6.5-6.5s6.5 2.9 6.5 6.5" />
      <path d="M16 4.8a3.5 3.5 0 0 1 0 6.4M18 13.8c2.1.8 3.5 3.1 3.5 6.2" />
    </svg>
  );
}

/** "More": three dots in a row. */
export function MoreIcon() {
  return (
    <svg {...common}>
      <circle cx="5" cy="12" r="1.25" fill="currentColor" />
      <circle cx="12" cy="12" r="1.25" fill="currentColor" />
      <circle cx="19" cy="12" r="1.25" fill="currentColor" />
    </svg>
  );
}

/** A disclosure's arrow, pointing right; turned down (CSS) when open. */
export function ChevronIcon() {
  return (
    <svg {...common} width={16} height={16}>
      <path d="M9 6l6 6-6 6" />
    </svg>
  );
}
