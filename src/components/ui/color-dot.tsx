import type { ListColor } from '@/data/schema';

/** Names of the palette keys, for labels ("Teal"). */
export const COLOR_NAMES: Readonly<Record<ListColor, string>> = {
  slate: 'Slate',
  red: 'Red',
  orange: 'Orange',
  yellow: 'Yellow',
  green: 'Green',
  teal: 'Teal',
  blue: 'Blue',
  purple: 'Purple',
};

/** A list's colour as a small dot (decorative: the list's name carries the meaning). */
export function ColorDot({ color, size = 12 }: { color: string; size?: number }) {
  return (
    <span
      className="color-dot"
      aria-hidden="true"
      style={{ width: size, height: size, background: `var(--list-${color}, var(--list-slate))` }}
    />
  );
}
