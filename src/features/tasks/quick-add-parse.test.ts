// Quick add's language (quick-add-parse.ts) as a table of phrasings, read on Wednesday
// 2 December 2026 in three locales, then the chips' spans and labels, and removed chips.
import { describe, expect, it } from 'vitest';

import { parseQuickAdd, type QuickAddMember } from './quick-add-parse';

/** A Wednesday. */
const TODAY = '2026-12-02';

const MEMBERS: QuickAddMember[] = [
  { id: 'u-bob', name: 'Bob Smith' },
  { id: 'u-bobby', name: 'Bobby Tables' },
  { id: 'u-alice', name: 'Alice Jones' },
  { id: 'u-alan', name: 'Alan Jones' },
];

interface Expected {
  title: string;
  due_on?: string;
  repeat?: string;
  priority?: number;
  assignee?: string;
}

type Row = [text: string, expected: Expected, locale?: string];

const ROWS: Row[] = [
  // The brief's example, and everything at once.
  [
    'Call the engineer tomorrow !high @bob',
    { title: 'Call the engineer', due_on: '2026-12-03', priority: 3, assignee: 'u-bob' },
  ],
  [
    'Pay rent every month on the 1st !h @alice',
    {
      title: 'Pay rent',
      due_on: '2027-01-01',
      repeat: 'monthly:1',
      priority: 3,
      assignee: 'u-alice',
    },
  ],
  // Relative days.
  ['Buy milk today', { title: 'Buy milk', due_on: '2026-12-02' }],
  ['Take the bins out tonight', { title: 'Take the bins out', due_on: '2026-12-02' }],
  ['TOMORROW call the bank', { title: 'call the bank', due_on: '2026-12-03' }],
  ['Call the bank tmr', { title: 'Call the bank', due_on: '2026-12-03' }],
  ['Call the bank yesterday', { title: 'Call the bank yesterday' }],
  ['Read today’s paper', { title: 'Read today’s paper' }],
  ["Read today's paper", { title: "Read today's paper" }],
  ['Call the bank tomorrow, then lunch', { title: 'Call the bank tomorrow, then lunch' }],
  // Weekdays: the next one, today's being today; "next" is next week's.
  ['Call mom friday', { title: 'Call mom', due_on: '2026-12-04' }],
  ['Call mom fri', { title: 'Call mom', due_on: '2026-12-04' }],
  ['Call mom thurs', { title: 'Call mom', due_on: '2026-12-03' }],
  ['Call mom wednesday', { title: 'Call mom', due_on: '2026-12-02' }],
  ['Call mom on monday', { title: 'Call mom', due_on: '2026-12-07' }],
  ['Submit the report by friday', { title: 'Submit the report', due_on: '2026-12-04' }],
  ['On friday call about the roof', { title: 'call about the roof', due_on: '2026-12-04' }],
  ['Call mom next friday', { title: 'Call mom', due_on: '2026-12-11' }],
  ['Call mom next monday', { title: 'Call mom', due_on: '2026-12-07' }],
  ['Call mom next wed', { title: 'Call mom', due_on: '2026-12-09' }],
  // A bare weekday counts only at the end (other understood words may follow).
  ['Meeting notes for Friday review', { title: 'Meeting notes for Friday review' }],
  ['Friday review notes', { title: 'Friday review notes' }],
  ['Meeting notes for Friday', { title: 'Meeting notes for', due_on: '2026-12-04' }],
  ['Team lunch friday !low', { title: 'Team lunch', due_on: '2026-12-04', priority: 1 }],
  // "sat", "sun" and "wed" are words too.
  ['Enjoy the sun', { title: 'Enjoy the sun' }],
  ['Where we sat', { title: 'Where we sat' }],
  ['Dinner on sun', { title: 'Dinner', due_on: '2026-12-06' }],
  ['Dinner sunday', { title: 'Dinner', due_on: '2026-12-06' }],
  // Weeks, months, "in".
  ['Plan the sprint next week', { title: 'Plan the sprint', due_on: '2026-12-07' }],
  ['Pay the invoice next month', { title: 'Pay the invoice', due_on: '2027-01-01' }],
  ['Renew the permit in 3 days', { title: 'Renew the permit', due_on: '2026-12-05' }],
  ['Renew the permit in 2 weeks', { title: 'Renew the permit', due_on: '2026-12-16' }],
  ['Renew the permit in a week', { title: 'Renew the permit', due_on: '2026-12-09' }],
  ['Renew the permit in 0 days', { title: 'Renew the permit in 0 days' }],
  // Numeric dates by the locale's order; a day and month alone is the next one to come.
  ['Dentist 12/3', { title: 'Dentist', due_on: '2026-12-03' }, 'en-US'],
  ['Dentist 12/3', { title: 'Dentist', due_on: '2027-03-12' }, 'en-GB'],
  ['Dentist 12/3', { title: 'Dentist', due_on: '2027-03-12' }, 'de-DE'],
  ['Dentist 12/3/2027', { title: 'Dentist', due_on: '2027-12-03' }, 'en-US'],
  ['Dentist 12/3/2027', { title: 'Dentist', due_on: '2027-03-12' }, 'en-GB'],
  ['Zahnarzt 3.12.', { title: 'Zahnarzt', due_on: '2026-12-03' }, 'de-DE'],
  ['Zahnarzt 3.12.2027', { title: 'Zahnarzt', due_on: '2027-12-03' }, 'de-DE'],
  ['Release 3.12', { title: 'Release 3.12' }, 'de-DE'],
  ['Dentist 1/12', { title: 'Dentist', due_on: '2027-01-12' }, 'en-US'],
  ['Dentist 2/29', { title: 'Dentist', due_on: '2028-02-29' }, 'en-US'],
  ['Dentist 2/30', { title: 'Dentist 2/30' }, 'en-US'],
  ['Dentist 13/13', { title: 'Dentist 13/13' }, 'en-GB'],
  ['Wrap presents 2026-12-24', { title: 'Wrap presents', due_on: '2026-12-24' }],
  ['Wrap presents 2026-02-30', { title: 'Wrap presents 2026-02-30' }],
  // Month names, either way round, with an optional year.
  ['Wrap presents dec 24', { title: 'Wrap presents', due_on: '2026-12-24' }, 'en-US'],
  ['Wrap presents 24 Dec', { title: 'Wrap presents', due_on: '2026-12-24' }],
  ['Wrap presents december 24th', { title: 'Wrap presents', due_on: '2026-12-24' }],
  ['Wrap presents on 24th December', { title: 'Wrap presents', due_on: '2026-12-24' }],
  ['Book flights dec 24 2027', { title: 'Book flights', due_on: '2027-12-24' }],
  ['Book flights dec 1', { title: 'Book flights', due_on: '2027-12-01' }],
  ['Book flights sept 5', { title: 'Book flights', due_on: '2027-09-05' }],
  ['Book flights feb 30', { title: 'Book flights feb 30' }],
  // Repeats, due on their first occurrence unless a date is given.
  ['Stretch every day', { title: 'Stretch', due_on: '2026-12-02', repeat: 'daily' }],
  ['Stretch daily', { title: 'Stretch', due_on: '2026-12-02', repeat: 'daily' }],
  ['Daily standup notes', { title: 'Daily standup notes' }],
  ['Gym every monday', { title: 'Gym', due_on: '2026-12-07', repeat: 'weekly:1' }],
  ['Gym every mon and thu', { title: 'Gym', due_on: '2026-12-03', repeat: 'weekly:1,4' }],
  ['Gym every thu, mon', { title: 'Gym', due_on: '2026-12-03', repeat: 'weekly:1,4' }],
  ['Gym every sat,sun', { title: 'Gym', due_on: '2026-12-05', repeat: 'weekly:6,7' }],
  ['Gym every wednesday', { title: 'Gym', due_on: '2026-12-02', repeat: 'weekly:3' }],
  [
    'Gym every mon and buy milk',
    { title: 'Gym and buy milk', due_on: '2026-12-07', repeat: 'weekly:1' },
  ],
  ['Standup every weekday', { title: 'Standup', due_on: '2026-12-02', repeat: 'weekly:1,2,3,4,5' }],
  ['Hike every weekend', { title: 'Hike', due_on: '2026-12-05', repeat: 'weekly:6,7' }],
  ['Review every week', { title: 'Review', due_on: '2026-12-02', repeat: 'weekly:3' }],
  ['Review weekly', { title: 'Review', due_on: '2026-12-02', repeat: 'weekly:3' }],
  ['Weekly review', { title: 'Weekly review' }],
  ['Review weekly fri', { title: 'Review', due_on: '2026-12-04', repeat: 'weekly:5' }],
  ['Review every week on tue', { title: 'Review', due_on: '2026-12-08', repeat: 'weekly:2' }],
  ['Backups every month', { title: 'Backups', due_on: '2026-12-02', repeat: 'monthly:2' }],
  ['Backups monthly dec 24', { title: 'Backups', due_on: '2026-12-24', repeat: 'monthly:24' }],
  [
    'Pay rent every month on the 15th',
    { title: 'Pay rent', due_on: '2026-12-15', repeat: 'monthly:15' },
  ],
  ['Pay rent every 31st', { title: 'Pay rent', due_on: '2026-12-31', repeat: 'monthly:31' }],
  ['Pay rent every 15 minutes', { title: 'Pay rent every 15 minutes' }],
  ['Water plants every 3 days', { title: 'Water plants', due_on: '2026-12-02', repeat: 'after:3' }],
  [
    'Water plants every 2 weeks',
    { title: 'Water plants', due_on: '2026-12-02', repeat: 'after:14' },
  ],
  [
    'Water plants every other day',
    { title: 'Water plants', due_on: '2026-12-02', repeat: 'after:2' },
  ],
  ['Water plants every 400 days', { title: 'Water plants every 400 days' }],
  ['Gym every monday dec 24', { title: 'Gym', due_on: '2026-12-24', repeat: 'weekly:1' }],
  // Priority.
  ['Fix the leak !H', { title: 'Fix the leak', priority: 3 }],
  ['Fix the leak !3', { title: 'Fix the leak', priority: 3 }],
  ['Fix the leak !medium', { title: 'Fix the leak', priority: 2 }],
  ['!m Fix the leak', { title: 'Fix the leak', priority: 2 }],
  ['Fix the leak !low', { title: 'Fix the leak', priority: 1 }],
  ['Fix the leak !1', { title: 'Fix the leak', priority: 1 }],
  ['Fix the leak p1', { title: 'Fix the leak p1' }],
  ['Fix the leak !', { title: 'Fix the leak !' }],
  ['Fix the leak !urgent', { title: 'Fix the leak !urgent' }],
  ['Fix the leak !low !high', { title: 'Fix the leak !high', priority: 1 }],
  // Assignees: a unique match of the name or a word of it; an exact word wins.
  ['Send invoice @BOB', { title: 'Send invoice', assignee: 'u-bob' }],
  ['Send invoice @bobby', { title: 'Send invoice', assignee: 'u-bobby' }],
  ['Send invoice @smi', { title: 'Send invoice', assignee: 'u-bob' }],
  ['Send invoice @bobs', { title: 'Send invoice', assignee: 'u-bob' }],
  ['Send invoice @ali', { title: 'Send invoice', assignee: 'u-alice' }],
  ['Send invoice @al', { title: 'Send invoice @al' }],
  ['Send invoice @jones', { title: 'Send invoice @jones' }],
  ['Send invoice @carol', { title: 'Send invoice @carol' }],
  ['Send invoice @', { title: 'Send invoice @' }],
  // Whole words only: these stay whole.
  ['Fix door 12', { title: 'Fix door 12' }],
  ['Call 911', { title: 'Call 911' }],
  ['Room 12/3B', { title: 'Room 12/3B' }, 'en-US'],
  ['Buy 2 eggs', { title: 'Buy 2 eggs' }],
  ['C# tips', { title: 'C# tips' }],
  ['email bob@x.io', { title: 'email bob@x.io' }],
  ['Read constructor docs', { title: 'Read constructor docs' }],
  // Spaces collapse; the first of a kind counts; nothing else left keeps the text.
  ['  Buy   milk  tomorrow ', { title: 'Buy milk', due_on: '2026-12-03' }],
  ['Call tomorrow friday', { title: 'Call friday', due_on: '2026-12-03' }],
  ['tomorrow', { title: 'tomorrow', due_on: '2026-12-03' }],
  ['!high  @bob', { title: '!high @bob', priority: 3, assignee: 'u-bob' }],
  ['', { title: '' }],
];

describe('parseQuickAdd', () => {
  it.each(ROWS)('%j (%s)', (text, expected, locale = 'en-GB') => {
    const parsed = parseQuickAdd(text, { today: TODAY, locale, members: MEMBERS });
    expect({
      title: parsed.title,
      due_on: parsed.due_on,
      repeat: parsed.repeat,
      priority: parsed.priority,
      assignee: parsed.assignee_id,
    }).toEqual({
      title: expected.title,
      due_on: expected.due_on ?? null,
      repeat: expected.repeat ?? null,
      priority: expected.priority ?? 0,
      assignee: expected.assignee ?? null,
    });
  });

  it('counts from the day it is given: on a Monday, "every monday" is due today', () => {
    const parsed = parseQuickAdd('Gym every monday', {
      today: '2026-12-07',
      locale: 'en-GB',
      members: [],
    });
    expect([parsed.due_on, parsed.repeat]).toEqual(['2026-12-07', 'weekly:1']);
    // The 31st in a shorter month is its last day.
    const rent = parseQuickAdd('Rent every 31st', {
      today: '2027-02-03',
      locale: 'en-GB',
      members: [],
    });
    expect(rent.due_on).toBe('2027-02-28');
  });

  it('gives each understood phrase its span, label and key', () => {
    const text = 'Call the engineer tomorrow !high @bob';
    const { tokens } = parseQuickAdd(text, { today: TODAY, locale: 'en-GB', members: MEMBERS });
    expect(tokens).toEqual([
      { kind: 'due', start: 18, end: 26, label: 'Tomorrow', key: 'due:tomorrow' },
      { kind: 'priority', start: 27, end: 32, label: 'High priority', key: 'priority:!high' },
      { kind: 'assignee', start: 33, end: 37, label: '@Bob Smith', key: 'assignee:@bob' },
    ]);
    expect(tokens.map(({ start, end }) => text.slice(start, end))).toEqual([
      'tomorrow',
      '!high',
      '@bob',
    ]);
  });

  it.each([
    ['Call mom friday', 'en-GB', 'Fri 4 Dec'],
    ['Call mom friday', 'en-US', 'Fri, Dec 4'],
    ['Call mom today', 'en-GB', 'Today'],
    ['Call mom tonight', 'en-GB', 'Tonight'],
    ['Book flights dec 24 2027', 'en-GB', 'Fri, 24 Dec 2027'],
    ['Gym every monday', 'en-GB', 'Every Monday'],
    ['Gym every mon, wed and fri', 'en-GB', 'Every Mon, Wed and Fri'],
    ['Gym every weekday', 'en-GB', 'Every weekday'],
    ['Stretch daily', 'en-GB', 'Every day'],
    ['Rent every month on the 2nd', 'en-GB', 'Every month on the 2nd'],
    ['Rent every 23rd', 'en-GB', 'Every month on the 23rd'],
    ['Rent every 11th', 'en-GB', 'Every month on the 11th'],
    ['Water every 3 days', 'en-GB', '3 days after done'],
    ['Water every 2 weeks', 'en-GB', '2 weeks after done'],
    ['Water every 1 day', 'en-GB', '1 day after done'],
    ['Fix !m', 'en-GB', 'Medium priority'],
    ['Fix !low', 'en-GB', 'Low priority'],
  ])('labels %j in %s "%s"', (text, locale, label) => {
    const { tokens } = parseQuickAdd(text, { today: TODAY, locale, members: MEMBERS });
    expect(tokens.map((token) => token.label).at(-1)).toBe(label);
  });

  it('reads a removed phrase, and every word of it, as words of the title', () => {
    const options = { today: TODAY, locale: 'en-GB', members: MEMBERS };
    const removed = parseQuickAdd('Gym every monday !high', {
      ...options,
      ignore: ['repeat:every monday'],
    });
    expect(removed).toMatchObject({ title: 'Gym every monday', due_on: null, repeat: null });
    expect(removed.tokens.map((token) => token.kind)).toEqual(['priority']);
    // A removed due date lets the next one count; a removed bare weekday is a title word,
    // so an earlier one is no longer last.
    expect(
      parseQuickAdd('Call tomorrow friday', { ...options, ignore: ['due:tomorrow'] }),
    ).toMatchObject({ title: 'Call tomorrow', due_on: '2026-12-04' });
    expect(parseQuickAdd('Call friday fri', { ...options, ignore: ['due:fri'] })).toMatchObject({
      title: 'Call friday fri',
      due_on: null,
    });
  });
});
