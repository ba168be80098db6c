// index.html with the first visit's script (scripts/first-visit.ts).
import { describe, expect, it } from 'vitest';

import { withFirstVisit } from './first-visit';

const HTML = [
  '<head>',
  '    <script defer src="/assets/shell-abc.js"></script>',
  '    <link rel="stylesheet" crossorigin href="/assets/style-x.css">',
  '</head>',
  '<body>',
  '<div id="root"></div>',
  '</body>',
].join('\n');

describe('withFirstVisit', () => {
  it("loads its script just before the app shell's, the stylesheets asked for first", () => {
    expect(withFirstVisit(HTML, '/assets/first-visit-x.js')).toBe(
      [
        '<head>',
        '    <link rel="stylesheet" crossorigin href="/assets/style-x.css">',
        '    <script defer src="/assets/first-visit-x.js"></script>',
        '    <script defer src="/assets/shell-abc.js"></script>',
        '</head>',
        '<body>',
        '<div id="root"></div>',
        '</body>',
      ].join('\n'),
    );
  });

  it('fails the build when index.html is not as expected', () => {
    expect(() => withFirstVisit(HTML.replace('shell-abc', 'main'), '/x.js')).toThrow(/app shell/);
    expect(() => withFirstVisit(HTML.replace('id="root"', 'id="app"'), '/x.js')).toThrow(
      /lost its <div id="root">/,
    );
  });
});
