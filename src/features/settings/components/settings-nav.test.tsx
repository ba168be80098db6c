// Settings' section navigation: a link to each section, aria-current on the one being read
// (the last whose top has passed a line near the window's top as the page scrolls), on the one picked
// (a click, or the address) until the reader scrolls by hand, and a click on the section the
// address already names still goes there.
import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { VIEW_LINE } from '../hooks/use-section-in-view';
import { SettingsNav } from './settings-nav';

const SECTIONS = [
  ['profile', 'Profile'],
  ['sync', 'Sync'],
  ['about', 'About'],
] as const;

/** Where each section's top edge is now, in px from the window's top. */
let tops: Record<string, number>;

function renderNav() {
  render(
    <>
      <SettingsNav sections={SECTIONS} />
      {SECTIONS.map(([id, title]) => (
        <section key={id} id={id} tabIndex={-1} aria-label={title} />
      ))}
    </>,
  );
  for (const [id] of SECTIONS) {
    const section = document.getElementById(id)!;
    vi.spyOn(section, 'getBoundingClientRect').mockImplementation(
      () => new DOMRect(0, tops[id], 600, 300),
    );
  }
}

/** The page scrolled so that `id`'s top has just passed the line near the window's top. */
function scrollTo(id: string) {
  const at = SECTIONS.findIndex(([each]) => each === id);
  const line = innerHeight * VIEW_LINE;
  SECTIONS.forEach(([each], index) => {
    tops[each] = line - 20 + (index - at) * 320;
  });
  act(() => {
    fireEvent.scroll(window);
  });
}

const current = () => screen.getByRole('link', { current: 'location' });

beforeEach(() => {
  history.replaceState(null, '', '/settings');
  // The top of the page: every section below the line.
  tops = { profile: innerHeight * VIEW_LINE + 10, sync: 1_300, about: 1_700 };
});
afterEach(() => vi.restoreAllMocks());

describe('settings section navigation', () => {
  it('links to each section and marks the one crossing the line as the page scrolls', async () => {
    renderNav();
    const nav = screen.getByRole('navigation', { name: 'Settings sections' });
    expect(
      Array.from(nav.querySelectorAll('a'), (link) => [
        link.textContent,
        link.getAttribute('href'),
      ]),
    ).toEqual([
      ['Profile', '/settings#profile'],
      ['Sync', '/settings#sync'],
      ['About', '/settings#about'],
    ]);
    await waitFor(() => expect(current()).toHaveTextContent('Profile'));
    scrollTo('sync');
    await waitFor(() => expect(current()).toHaveTextContent('Sync'));
    expect(screen.getAllByRole('link', { current: 'location' })).toHaveLength(1);
    scrollTo('about');
    await waitFor(() => expect(current()).toHaveTextContent('About'));
    scrollTo('profile');
    await waitFor(() => expect(current()).toHaveTextContent('Profile'));
  });

  it('keeps a picked section marked through the scroll to it, until the reader scrolls', async () => {
    const user = userEvent.setup();
    renderNav();
    await waitFor(() => expect(current()).toHaveTextContent('Profile'));
    await user.click(screen.getByRole('link', { name: 'About' }));
    expect(current()).toHaveTextContent('About');
    expect(location.hash).toBe('#about');
    // Too short to reach the line: the page stops with Sync across it.
    scrollTo('sync');
    expect(current()).toHaveTextContent('About');
    // The reader's own wheel: the mark follows the page again.
    fireEvent.wheel(window);
    scrollTo('sync');
    await waitFor(() => expect(current()).toHaveTextContent('Sync'));
  });

  it('marks the section in the address, and goes back to it on a click', async () => {
    history.replaceState(null, '', '/settings#about');
    const user = userEvent.setup();
    renderNav();
    expect(current()).toHaveTextContent('About');
    fireEvent.keyDown(window, { key: 'PageUp' });
    scrollTo('profile');
    await waitFor(() => expect(current()).toHaveTextContent('Profile'));

    const about = document.getElementById('about')!;
    const scrolled = vi.fn();
    about.scrollIntoView = scrolled;
    await user.click(screen.getByRole('link', { name: 'About' }));
    expect(scrolled).toHaveBeenCalledWith({ block: 'start' });
    expect(about).toHaveFocus();
    expect(current()).toHaveTextContent('About');
  });
});
