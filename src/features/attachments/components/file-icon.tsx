// Small decorative icons for attachments (the file's name is always written beside them).

export function FileIcon({ kind }: { kind: 'pdf' | 'image' | 'loading' }) {
  if (kind === 'pdf') {
    return (
      <svg className="attachments__icon" viewBox="0 0 32 40" aria-hidden="true" focusable="false">
        <path
          d="M3 1h18l8 8v28a2 2 0 0 1-2 2H3a2 2 0 0 1-2-2V3a2 2 0 0 1 2-2z"
          fill="var(--surface)"
          stroke="currentColor"
          strokeWidth="2"
        />
        <path d="M21 1v8h8" fill="none" stroke="currentColor" strokeWidth="2" />
        <rect x="4" y="21" width="24" height="11" rx="2" fill="var(--danger)" />
        <text
          x="16"
          y="29.5"
          textAnchor="middle"
          fontSize="8"
          fontWeight="700"
          fontFamily="system-ui, sans-serif"
          fill="#fff"
        >
          PDF
        </text>
      </svg>
    );
  }
  return (
    <svg
      className={`attachments__icon${kind === 'loading' ? ' attachments__icon--loading' : ''}`}
      viewBox="0 0 32 32"
      aria-hidden="true"
      focusable="false"
    >
      <rect
        x="2"
        y="5"
        width="28"
        height="22"
        rx="3"
        fill="none"
        stroke="currentColor"
        strokeWidth="2"
      />
      <circle cx="11" cy="12" r="2.5" fill="currentColor" />
      <path d="M4 25l8-8 5 5 4-4 8 7" fill="none" stroke="currentColor" strokeWidth="2" />
    </svg>
  );
}
