// The keys that move between rows of a list (a list's tasks, a My work view's): j and k
// anywhere in a row, ↓ and ↑ on the row itself (on its controls they keep their own meaning).

/** How far `key` moves the focus among rows: 1 down, -1 up, 0 not a move. */
export function rowStep(key: string, onRow: boolean): -1 | 0 | 1 {
  if (key === 'j' || (onRow && key === 'ArrowDown')) return 1;
  if (key === 'k' || (onRow && key === 'ArrowUp')) return -1;
  return 0;
}
