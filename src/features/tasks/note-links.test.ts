import { describe, expect, it } from 'vitest';

import { noteParts } from './note-links';

describe('noteParts', () => {
  it('finds http and https addresses among the text, in order', () => {
    expect(noteParts('Quote at https://example.com/q?id=4 and http://shop.test/a#b done')).toEqual([
      { text: 'Quote at ' },
      { text: 'https://example.com/q?id=4', href: 'https://example.com/q?id=4' },
      { text: ' and ' },
      { text: 'http://shop.test/a#b', href: 'http://shop.test/a#b' },
      { text: ' done' },
    ]);
  });

  it('leaves sentence punctuation out, but keeps brackets the address opened', () => {
    expect(noteParts('See https://example.com/guide.')).toEqual([
      { text: 'See ' },
      { text: 'https://example.com/guide', href: 'https://example.com/guide' },
      { text: '.' },
    ]);
    expect(noteParts('(https://example.com/a), then')).toEqual([
      { text: '(' },
      { text: 'https://example.com/a', href: 'https://example.com/a' },
      { text: '), then' },
    ]);
    expect(noteParts('https://en.wikipedia.org/wiki/Gate_(disambiguation)')).toEqual([
      {
        text: 'https://en.wikipedia.org/wiki/Gate_(disambiguation)',
        href: 'https://en.wikipedia.org/wiki/Gate_(disambiguation)',
      },
    ]);
  });

  it('makes links of web addresses only', () => {
    for (const notes of [
      'javascript:alert(1)',
      'data:text/html,<b>x</b>',
      'ftp://files.test/a',
      'example.com',
      'xhttps://example.com',
      'https://',
    ]) {
      expect(noteParts(notes), notes).toEqual([{ text: notes }]);
    }
  });

  it('keeps line breaks and gives nothing for empty notes', () => {
    expect(noteParts('')).toEqual([]);
    expect(noteParts('One\nhttps://a.test\nTwo')).toEqual([
      { text: 'One\n' },
      { text: 'https://a.test', href: 'https://a.test/' },
      { text: '\nTwo' },
    ]);
  });
});
