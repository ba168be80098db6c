// Sizes are shown in the units the limits are set in (product.md §9: 10 MiB), so a size the app
// refuses always reads as more than the limit it names.
import { describe, expect, it } from 'vitest';

import { ATTACHMENT_MAX_BYTES } from '@/data/schema';

import { charactersLeft, formatBytes, formatDue, shortDate } from './format';

const KIB = 1024;
const MIB = 1024 * KIB;

describe('formatBytes', () => {
  it('counts in binary units, one decimal below 100 and none for whole numbers', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(2 * KIB)).toBe('2 KB');
    expect(formatBytes(ATTACHMENT_MAX_BYTES)).toBe('10 MB');
    expect(formatBytes(250 * MIB)).toBe('250 MB');
    expect(formatBytes(3 * 1024 * MIB)).toBe('3 GB');
    // Rounding up to the next unit says so, not "1024 KB".
    expect(formatBytes(MIB - 1)).toBe('1 MB');
  });

  it('shows a file 10.3 MB by decimal count as under the 10 MiB limit, as it is', () => {
    // 10,300,000 bytes is 9.82 MiB: accepted, and shown below the limit.
    expect(10_300_000).toBeLessThan(ATTACHMENT_MAX_BYTES);
    expect(formatBytes(10_300_000)).toBe('9.8 MB');
  });

  it('rounds up on request, so a refused size never reads as the limit', () => {
    expect(formatBytes(ATTACHMENT_MAX_BYTES + 1)).toBe('10 MB');
    expect(formatBytes(ATTACHMENT_MAX_BYTES + 1, { roundUp: true })).toBe('10.1 MB');
    expect(formatBytes(ATTACHMENT_MAX_BYTES, { roundUp: true })).toBe('10 MB');
    expect(formatBytes(11 * MIB, { roundUp: true })).toBe('11 MB');
  });
});

describe('charactersLeft', () => {
  it('counts down to the limit, then says by how much it is over', () => {
    expect(charactersLeft(60, 80)).toBe('20 characters left');
    expect(charactersLeft(79, 80)).toBe('1 character left');
    expect(charactersLeft(80, 80)).toBe('0 characters left');
    expect(charactersLeft(81, 80)).toBe('1 character too many');
    expect(charactersLeft(83, 80)).toBe('3 characters too many');
    expect(charactersLeft(5_080, 80)).toBe('5,000 characters too many');
  });
});

describe('formatDue', () => {
  // Noon on 10 March 2026, local time.
  const now = new Date(2026, 2, 10, 12).getTime();
  const asTheDeviceSaysIt = (iso: string) =>
    new Date(`${iso}T00:00:00`).toLocaleDateString(undefined, { day: 'numeric', month: 'short' });

  it('says today, tomorrow, overdue with its date, or the date', () => {
    expect(formatDue('2026-03-10', now)).toEqual({ text: 'Today', overdue: false });
    expect(formatDue('2026-03-11', now)).toEqual({ text: 'Tomorrow', overdue: false });
    expect(formatDue('2026-03-03', now)).toEqual({
      text: `Overdue · ${asTheDeviceSaysIt('2026-03-03')}`,
      overdue: true,
    });
    expect(formatDue('2026-12-25', now)).toEqual({
      text: asTheDeviceSaysIt('2026-12-25'),
      overdue: false,
    });
  });

  it('gives each date its own day and month from the one shared formatter', () => {
    for (const iso of ['2026-01-31', '2026-02-01', '2027-07-04']) {
      expect(shortDate(iso)).toBe(asTheDeviceSaysIt(iso));
    }
    expect(shortDate('2026-01-31')).not.toBe(shortDate('2026-02-01'));
  });
});
