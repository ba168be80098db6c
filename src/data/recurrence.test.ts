// Repeat rules and the ids that make a next occurrence exactly once (recurrence.ts): rules read
// and written back unchanged, the next due date over a table of cases (on time, late, early,
// across weeks, months and years, leap years, undated), and derived ids that are valid,
// stable UUIDs, the first 16 bytes of SHA-256 as the server's private.task_successor_id takes
// them (tests/integration/recurrence-rules.test.ts compares the two).
import { createHash, randomUUID } from 'node:crypto';

import { describe, expect, it } from 'vitest';

import { addDays } from '@/utils/format';

import {
  copiedItemId,
  describeRepeat,
  isoWeekday,
  nextDue,
  readRepeat,
  successorId,
  writeRepeat,
  type Repeat,
} from './recurrence';

/** RFC 9562: version 8 in the 13th digit, variant 10xx in the 17th. */
const UUID_V8 = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('repeat rules', () => {
  it.each([
    ['daily', { kind: 'daily' }],
    ['weekly:1', { kind: 'weekly', days: [1] }],
    ['weekly:1,4', { kind: 'weekly', days: [1, 4] }],
    ['weekly:1,2,3,4,5,6,7', { kind: 'weekly', days: [1, 2, 3, 4, 5, 6, 7] }],
    ['monthly:1', { kind: 'monthly', day: 1 }],
    ['monthly:31', { kind: 'monthly', day: 31 }],
    ['after:1', { kind: 'after', days: 1 }],
    ['after:365', { kind: 'after', days: 365 }],
  ] as const)('reads %s and writes it back unchanged', (rule, repeat) => {
    expect(readRepeat(rule)).toEqual(repeat);
    expect(writeRepeat(readRepeat(rule) as Repeat)).toBe(rule);
  });

  it.each([
    null,
    undefined,
    '',
    'Daily',
    'weekly',
    'weekly:',
    'weekly:4,1',
    'weekly:1,1',
    'weekly:0',
    'weekly:8',
    'monthly:0',
    'monthly:32',
    'after:0',
    'after:366',
    'after:-1',
    'yearly',
    ' daily',
  ])('reads %j as no rule', (rule) => {
    expect(readRepeat(rule)).toBeNull();
  });

  it('writes weekdays sorted, each once', () => {
    expect(writeRepeat({ kind: 'weekly', days: [7, 4, 1, 4] })).toBe('weekly:1,4,7');
  });

  it.each<Repeat>([
    { kind: 'weekly', days: [] },
    { kind: 'weekly', days: [0] },
    { kind: 'weekly', days: [8] },
    { kind: 'monthly', day: 0 },
    { kind: 'monthly', day: 32 },
    { kind: 'after', days: 0 },
    { kind: 'after', days: 366 },
    { kind: 'after', days: 1.5 },
  ])('refuses to write %j', (repeat) => {
    expect(() => writeRepeat(repeat)).toThrow(RangeError);
  });

  it.each<[Repeat, string]>([
    [{ kind: 'daily' }, 'Every day'],
    [{ kind: 'weekly', days: [1, 4] }, 'Every Mon, Thu'],
    [{ kind: 'weekly', days: [7] }, 'Every Sun'],
    [{ kind: 'weekly', days: [1, 2, 3, 4, 5] }, 'Every weekday'],
    [{ kind: 'weekly', days: [1, 2, 3, 4, 5, 6, 7] }, 'Every day of the week'],
    [{ kind: 'weekly', days: [6, 7] }, 'Every Sat, Sun'],
    [{ kind: 'monthly', day: 1 }, 'Monthly on the 1st'],
    [{ kind: 'monthly', day: 2 }, 'Monthly on the 2nd'],
    [{ kind: 'monthly', day: 3 }, 'Monthly on the 3rd'],
    [{ kind: 'monthly', day: 4 }, 'Monthly on the 4th'],
    [{ kind: 'monthly', day: 11 }, 'Monthly on the 11th'],
    [{ kind: 'monthly', day: 12 }, 'Monthly on the 12th'],
    [{ kind: 'monthly', day: 13 }, 'Monthly on the 13th'],
    [{ kind: 'monthly', day: 21 }, 'Monthly on the 21st'],
    [{ kind: 'monthly', day: 22 }, 'Monthly on the 22nd'],
    [{ kind: 'monthly', day: 23 }, 'Monthly on the 23rd'],
    [{ kind: 'monthly', day: 31 }, 'Monthly on the 31st'],
    [{ kind: 'after', days: 1 }, '1 day after done'],
    [{ kind: 'after', days: 3 }, '3 days after done'],
  ])('describes %j as "%s"', (repeat, words) => {
    expect(describeRepeat(repeat)).toBe(words);
  });
});

describe('calendar days', () => {
  it('adds days across months, years and a leap day', () => {
    expect(addDays('2026-01-31', 1)).toBe('2026-02-01');
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(addDays('2028-02-28', 1)).toBe('2028-02-29');
    expect(addDays('2027-02-28', 1)).toBe('2027-03-01');
    expect(addDays('2026-03-01', -1)).toBe('2026-02-28');
  });

  it('names ISO weekdays, Monday 1 to Sunday 7', () => {
    // 2026-03-09 is a Monday.
    expect(
      ['2026-03-09', '2026-03-12', '2026-03-14', '2026-03-15'].map((date) => isoWeekday(date)),
    ).toEqual([1, 4, 6, 7]);
  });
});

/** The last day of the month of an ISO date (the 28th and 4 days is always next month). */
function lastDayOf(date: string): number {
  const nextMonth = addDays(`${date.slice(0, 8)}28`, 4).slice(0, 8);
  return Number(addDays(`${nextMonth}01`, -1).slice(8));
}

describe('the next due date', () => {
  // Weekdays used below: 2026-03-09 Mon, 03-12 Thu, 03-15 Sun; 2026-12-28 Mon.
  const cases: [rule: string, due: string | null, today: string, next: string, why: string][] = [
    ['daily', '2026-03-10', '2026-03-10', '2026-03-11', 'done on the day: the next day'],
    ['daily', '2026-03-03', '2026-03-10', '2026-03-10', 'done a week late: today, not 7 times'],
    ['daily', '2026-03-15', '2026-03-10', '2026-03-16', 'done early: the day after its due date'],
    ['daily', '2026-12-31', '2026-12-31', '2027-01-01', 'across the year'],
    ['daily', null, '2026-03-10', '2026-03-11', 'undated: tomorrow'],
    ['weekly:1,4', '2026-03-09', '2026-03-09', '2026-03-12', 'Monday → Thursday'],
    [
      'weekly:1,4',
      '2026-03-12',
      '2026-03-12',
      '2026-03-16',
      'Thursday → Monday, across the weekend',
    ],
    ['weekly:1,4', '2026-03-12', '2026-03-13', '2026-03-16', 'a day late: still Monday'],
    ['weekly:1,4', '2026-03-02', '2026-03-11', '2026-03-12', 'a week late: the next rule day'],
    ['weekly:1,4', '2026-03-02', '2026-03-12', '2026-03-12', 'late, and today is a rule day'],
    ['weekly:1,4', '2026-03-19', '2026-03-10', '2026-03-23', 'done early: after its due date'],
    ['weekly:7', '2026-03-15', '2026-03-15', '2026-03-22', 'one day a week: a week on'],
    ['weekly:5,6,7', '2026-03-15', '2026-03-15', '2026-03-20', 'Sunday → Friday'],
    ['weekly:1', '2026-12-28', '2026-12-28', '2027-01-04', 'across the year'],
    ['weekly:1,4', null, '2026-03-09', '2026-03-12', 'undated: the next rule day after today'],
    ['weekly:1,4', null, '2026-03-11', '2026-03-12', 'undated, midweek'],
    ['monthly:15', '2026-03-15', '2026-03-15', '2026-04-15', 'on time: next month'],
    ['monthly:15', '2026-01-15', '2026-03-20', '2026-04-15', 'two months late: no backlog'],
    ['monthly:15', '2026-01-15', '2026-03-10', '2026-03-15', 'late, this month’s day to come'],
    ['monthly:15', '2026-05-15', '2026-03-01', '2026-06-15', 'done early: after its due date'],
    ['monthly:31', '2026-01-31', '2026-01-31', '2026-02-28', 'February takes its last day'],
    ['monthly:31', '2026-02-28', '2026-02-28', '2026-03-31', 'and March its 31st again'],
    ['monthly:31', '2028-01-31', '2028-01-31', '2028-02-29', 'a leap year’s February'],
    ['monthly:29', '2027-01-29', '2027-01-29', '2027-02-28', 'the 29th in a common year'],
    ['monthly:29', '2028-01-29', '2028-01-29', '2028-02-29', 'the 29th in a leap year'],
    ['monthly:30', '2026-04-30', '2026-04-30', '2026-05-30', 'April’s 30th → May’s'],
    ['monthly:31', '2026-04-30', '2026-04-30', '2026-05-31', 'a short month’s last day → 31st'],
    ['monthly:15', '2026-12-15', '2026-12-15', '2027-01-15', 'December → January'],
    ['monthly:31', '2026-12-31', '2026-12-31', '2027-01-31', 'December 31st → January 31st'],
    ['monthly:1', '2026-12-01', '2026-12-20', '2027-01-01', 'late in December → January'],
    ['monthly:15', null, '2026-03-10', '2026-03-15', 'undated: this month’s day to come'],
    ['monthly:15', null, '2026-03-15', '2026-04-15', 'undated, on the day: next month'],
    ['after:3', '2026-03-01', '2026-03-10', '2026-03-13', 'counts from the completion'],
    ['after:3', '2026-03-20', '2026-03-10', '2026-03-13', 'even when done early'],
    ['after:3', null, '2026-03-10', '2026-03-13', 'undated'],
    ['after:1', '2026-12-31', '2026-12-31', '2027-01-01', 'across the year'],
    ['after:365', null, '2027-03-01', '2028-02-29', 'a year through a leap day'],
  ];

  it.each(cases)('%s due %s, done %s → %s (%s)', (rule, due, today, next) => {
    expect(nextDue(readRepeat(rule) as Repeat, due, today)).toBe(next);
  });

  it('is never before today, never on or before the due date, and on a day the rule names', () => {
    // Every rule kind over two years of due dates and completion days around them.
    const rules = ['daily', 'weekly:2,6', 'weekly:7', 'monthly:1', 'monthly:30', 'monthly:31'];
    for (const rule of rules) {
      const repeat = readRepeat(rule) as Repeat;
      for (let d = 0; d < 730; d += 7) {
        const due = addDays('2027-01-01', d);
        for (const late of [-40, -1, 0, 1, 40]) {
          const today = addDays(due, late);
          const next = nextDue(repeat, due, today);
          const where = `${rule} due ${due} done ${today}: ${next}`;
          expect(next >= today && next > due, where).toBe(true);
          if (repeat.kind === 'weekly') expect(repeat.days, where).toContain(isoWeekday(next));
          if (repeat.kind === 'monthly') {
            const day = Number(next.slice(8));
            expect(day === Math.min(repeat.day, lastDayOf(next)), where).toBe(true);
          }
        }
      }
    }
  });
});

describe('derived ids', () => {
  it('makes the next occurrence’s id a version-8 UUID from SHA-256 of the occurrence’s', async () => {
    const occurrence = '7a5c0000-0000-4000-8000-000000000001';
    const id = await successorId(occurrence);
    expect(id).toMatch(UUID_V8);
    // The first 16 bytes of SHA-256, but for the version's 4 bits and the variant's 2.
    const digest = createHash('sha256').update(`outpost:next:${occurrence}`).digest();
    const bytes = Buffer.from(id.replaceAll('-', ''), 'hex');
    const masks = new Map([
      [6, 0x0f],
      [8, 0x3f],
    ]);
    for (let i = 0; i < 16; i++) {
      const mask = masks.get(i) ?? 0xff;
      expect(bytes[i]! & mask, `byte ${i}`).toBe(digest[i]! & mask);
    }
  });

  it('is the same for the same occurrence, whatever its case, and differs per occurrence', async () => {
    const occurrences = Array.from({ length: 200 }, () => randomUUID());
    const ids = await Promise.all(occurrences.map((id) => successorId(id)));
    for (const id of ids) expect(id).toMatch(UUID_V8);
    expect(new Set(ids).size).toBe(occurrences.length);
    expect(ids.some((id, i) => id === occurrences[i])).toBe(false);
    const [first = ''] = occurrences;
    expect(await successorId(first)).toBe(ids[0]);
    expect(await successorId(first.toUpperCase())).toBe(ids[0]);
    // The variant's two bits take all four values over enough ids.
    expect(new Set(ids.map((id) => id.charAt(19))).size).toBe(4);
  });

  it('gives each checklist copy an id of its own, from the next occurrence and the item', async () => {
    const next = await successorId(randomUUID());
    const [a, b] = [randomUUID(), randomUUID()];
    const copyA = await copiedItemId(next, a);
    expect(copyA).toMatch(UUID_V8);
    expect(await copiedItemId(next.toUpperCase(), a.toUpperCase())).toBe(copyA);
    expect(await copiedItemId(next, b)).not.toBe(copyA);
    expect(await copiedItemId(await successorId(next), a)).not.toBe(copyA);
    // Not the id a next occurrence of the item's id would get: the two never collide.
    expect(await successorId(a)).not.toBe(copyA);
  });
});
