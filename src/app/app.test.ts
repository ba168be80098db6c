// No DOM testing library here: server rendering is enough to catch a component that throws
// or loses its heading.
import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';

import { App } from './app';

describe('App', () => {
  it('renders the landing heading', () => {
    const html = renderToString(createElement(App));

    expect(html).toMatch(/<h1[^>]*>Outpost — offline-first shared task lists<\/h1>/);
  });

  it('says the app is under construction', () => {
    const html = renderToString(createElement(App));

    expect(html).toContain('under construction');
  });
});
