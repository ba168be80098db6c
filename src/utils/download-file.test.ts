// A list's export is named after the list and the day, in a form every file system accepts.
import { describe, expect, it } from 'vitest';

import { exportFileName } from './download-file';

/** 27 November 2026, mid-morning local time. */
const NOW = new Date(2026, 10, 27, 10, 30).getTime();

describe('exportFileName', () => {
  it('names the file after the list and the local date', () => {
    expect(exportFileName('Groceries', NOW, 'csv')).toBe('Groceries 2026-11-27.csv');
    expect(exportFileName('Site inspection — Block C', NOW, 'json')).toBe(
      'Site inspection — Block C 2026-11-27.json',
    );
    expect(exportFileName('Café ☕ plans', NOW, 'csv')).toBe('Café ☕ plans 2026-11-27.csv');
  });

  it('drops what file systems refuse and falls back to "list"', () => {
    expect(exportFileName('a/b\\c:d*e?f"g<h>i|j', NOW, 'csv')).toBe(
      'a b c d e f g h i j 2026-11-27.csv',
    );
    expect(exportFileName('..hidden\u0007 name. . ', NOW, 'csv')).toBe(
      'hidden name 2026-11-27.csv',
    );
    expect(exportFileName('///', NOW, 'csv')).toBe('list 2026-11-27.csv');
    expect(exportFileName('   ', NOW, 'json')).toBe('list 2026-11-27.json');
    const long = exportFileName('x'.repeat(300), NOW, 'csv');
    expect(long).toBe(`${'x'.repeat(60)} 2026-11-27.csv`);
  });
});
