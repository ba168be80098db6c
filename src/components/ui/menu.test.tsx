// The popover and its menu: on a desktop a dropdown under its button whose header shows the
// key that opens it; on a phone a bottom sheet over a backdrop, with the same focus handling
// (focus goes in, Escape and a choice give it back, a tap outside closes it).
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { mockMediaQueries } from '@/testing/media-queries';

import { Menu, Popover, SHEET_QUERY } from './menu';

const STATUSES = [
  { value: 'todo', label: 'To do' },
  { value: 'doing', label: 'Doing' },
  { value: 'done', label: 'Done' },
];

/** A status popover in a row that counts its own clicks, beside another control. */
function renderStatus({ shortcut }: { shortcut?: string } = {}) {
  const picked = vi.fn();
  const rowClicked = vi.fn();
  render(
    <div>
      <div data-testid="row" onClick={rowClicked}>
        <Popover
          label="Status: To do"
          trigger="To do"
          popup="menu"
          popupLabel="Status"
          shortcut={shortcut}
        >
          {(close) => (
            <Menu
              label="Status"
              items={STATUSES}
              selected="todo"
              onSelect={(value) => {
                close();
                picked(value);
              }}
            />
          )}
        </Popover>
      </div>
      <button type="button">Elsewhere</button>
    </div>,
  );
  return { picked, rowClicked, button: screen.getByRole('button', { name: 'Status: To do' }) };
}

/** The browser answers `SHEET_QUERY` with `phone`. */
function screenIsPhone(phone: boolean) {
  mockMediaQueries(phone ? [SHEET_QUERY] : []);
}

afterEach(() => vi.restoreAllMocks());

describe('popover on a desktop', () => {
  it('opens under its button, its header naming the key that opens it', async () => {
    screenIsPhone(false);
    const user = userEvent.setup();
    const { button } = renderStatus({ shortcut: 's' });
    expect(button).toHaveAttribute('data-shortcut', 's');
    expect(button).toHaveAttribute('aria-keyshortcuts', 'S');
    await user.click(button);
    const menu = screen.getByRole('menu', { name: 'Status' });
    const panel = menu.parentElement!;
    expect(button.parentElement).toContainElement(panel);
    expect(panel).not.toHaveClass('popover__panel--sheet');
    expect(document.querySelector('.popover__backdrop')).toBeNull();
    const header = panel.querySelector('.popover__header');
    expect(header).toHaveTextContent('StatusS');
    expect(header).toHaveAttribute('aria-hidden', 'true');
    expect(header?.querySelector('kbd')).toHaveTextContent('S');
    expect(screen.getByRole('menuitemradio', { name: 'To do' })).toHaveFocus();
  });

  it('has no header without a key', async () => {
    screenIsPhone(false);
    const user = userEvent.setup();
    const { button } = renderStatus();
    await user.click(button);
    expect(document.querySelector('.popover__header')).toBeNull();
  });
});

describe('popover on a phone', () => {
  it('is a bottom sheet outside the row, titled, without the key', async () => {
    screenIsPhone(true);
    const user = userEvent.setup();
    const { button } = renderStatus({ shortcut: 's' });
    await user.click(button);
    const panel = screen.getByRole('menu', { name: 'Status' }).parentElement!;
    expect(panel).toHaveClass('popover__panel--sheet');
    expect(panel.parentElement).toBe(document.body);
    expect(screen.getByTestId('row')).not.toContainElement(panel);
    expect(button).toHaveAttribute('aria-controls', panel.id);
    expect(panel.querySelector('.popover__header')).toHaveTextContent(/^Status$/);
    expect(document.querySelector('.popover__backdrop')).toBeInTheDocument();
    // Focus went into the sheet, and the sheet stayed open.
    await waitFor(() => expect(screen.getByRole('menuitemradio', { name: 'To do' })).toHaveFocus());
  });

  it('gives focus back on Escape and on a choice', async () => {
    screenIsPhone(true);
    const user = userEvent.setup();
    const { button, picked } = renderStatus();
    await user.click(button);
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('menu')).toBeNull();
    expect(button).toHaveFocus();

    await user.click(button);
    await user.keyboard('{ArrowDown}{Enter}');
    expect(picked).toHaveBeenCalledWith('doing');
    expect(screen.queryByRole('menu')).toBeNull();
    expect(document.querySelector('.popover__backdrop')).toBeNull();
    expect(button).toHaveFocus();
  });

  it('closes on a tap on the backdrop, which goes no further', async () => {
    screenIsPhone(true);
    const user = userEvent.setup();
    const { button, rowClicked } = renderStatus();
    await user.click(button);
    rowClicked.mockClear();
    await user.click(document.querySelector('.popover__backdrop')!);
    expect(screen.queryByRole('menu')).toBeNull();
    expect(rowClicked).not.toHaveBeenCalled();
    expect(button).toHaveFocus();
  });

  it('closes when focus moves on to another control', async () => {
    screenIsPhone(true);
    const user = userEvent.setup();
    const { button } = renderStatus();
    await user.click(button);
    fireEvent.blur(screen.getByRole('menuitemradio', { name: 'To do' }), {
      relatedTarget: screen.getByRole('button', { name: 'Elsewhere' }),
    });
    expect(screen.queryByRole('menu')).toBeNull();
  });
});
