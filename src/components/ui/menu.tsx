// A button that opens a small popup under it (WAI-ARIA menu button), and the menu to put in
// it. One popover for every property picker: Escape closes it and gives focus back to its
// button, a click outside or focus moving on (Tab) closes it. On a phone the popup is a
// bottom sheet instead: drawn over a dimmed backdrop at the foot of the screen (in a portal,
// so no row's transform, overflow or stacking can clip it or put it under the bottom bar),
// with the same focus handling; a tap on the backdrop closes it.
import {
  useEffect,
  useId,
  useLayoutEffect,
  useRef,
  useState,
  type KeyboardEvent,
  type ReactNode,
  type RefObject,
} from 'react';
import { createPortal } from 'react-dom';

import './menu.css';

/** Type-ahead letters typed within this long of each other make one search (ms). */
const TYPE_AHEAD_RESET_MS = 500;
/** The popup keeps this far from the window's right edge (px). */
const EDGE_MARGIN_PX = 8;
/** Where a popup opens as a bottom sheet: a phone, or a narrow touch screen (a small tablet). */
export const SHEET_QUERY = '(max-width: 640px), (pointer: coarse) and (max-width: 759px)';

/** Whether a popup opened now is a bottom sheet (never where the browser cannot say). */
function opensAsSheet(): boolean {
  return typeof matchMedia === 'function' && matchMedia(SHEET_QUERY).matches;
}

/**
 * Whether `node` is in a popover: its button (in `wrapper`) or its popup (`panelId`, which a
 * sheet draws elsewhere). The popup by id, not by ref: focus moves into a new popup before
 * React has set its ref.
 */
function inside(wrapper: HTMLElement | null, panelId: string, node: Node | null): boolean {
  if (node === null) return false;
  return (
    (wrapper?.contains(node) ?? false) ||
    (document.getElementById(panelId)?.contains(node) ?? false)
  );
}

export interface PopoverProps {
  /** The button's accessible name, naming the property and its value: "Status: To do". */
  label: string;
  /** What the button shows. */
  trigger: ReactNode;
  /** What opens: a menu, or a dialog holding more than menu items (a calendar). */
  popup: 'menu' | 'dialog';
  /** The popup's accessible name ("Status"). */
  popupLabel: string;
  className?: string | undefined;
  /**
   * The single key that opens this popover from its row or screen ("s" for status): the
   * button carries it as `data-shortcut` (what the screens' key handlers click) and
   * `aria-keyshortcuts`, and the button's tooltip and the popup show it.
   */
  shortcut?: string | undefined;
  /** The popup's content; `close()` closes it and gives focus back to the button. */
  children: (close: () => void) => ReactNode;
}

export function Popover({
  label,
  trigger,
  popup,
  popupLabel,
  className,
  shortcut,
  children,
}: PopoverProps) {
  // `sheet`: where the popup is drawn as a bottom sheet, or null for a dropdown; decided as
  // it opens, so a popup never changes shape under the finger. A closed popover is its
  // button alone, with no effects: a list renders several in every row.
  const [{ open, sheet }, setState] = useState<{ open: boolean; sheet: HTMLElement | null }>({
    open: false,
    sheet: null,
  });
  const id = useId();
  const wrapper = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  /** Closed in a way that gives focus back to the button (Escape, a choice). */
  const refocus = useRef(false);
  const close = (giveFocusBack: boolean) => {
    refocus.current = giveFocusBack;
    setState({ open: false, sheet: null });
  };
  const toggle = (show: boolean) => {
    refocus.current = false;
    setState({
      open: show,
      // A popover in a modal dialog keeps its sheet in the dialog (the rest is inert).
      sheet: show && opensAsSheet() ? (wrapper.current?.closest('dialog') ?? document.body) : null,
    });
  };

  return (
    <div
      ref={wrapper}
      className={['popover', className ?? ''].filter(Boolean).join(' ')}
      onBlur={(event) => {
        // Focus gone elsewhere (Tab out of the popup, or a click on another control).
        const next = event.relatedTarget as Node | null;
        if (open && next && !inside(wrapper.current, id, next)) close(false);
      }}
    >
      <button
        ref={button}
        type="button"
        className="popover__button"
        aria-label={label}
        aria-haspopup={popup}
        aria-expanded={open}
        aria-keyshortcuts={shortcut?.toUpperCase()}
        data-shortcut={shortcut}
        title={shortcut ? `${popupLabel} (${shortcut.toUpperCase()})` : undefined}
        aria-controls={open ? id : undefined}
        onClick={() => toggle(!open)}
        onKeyDown={(event) => {
          if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
            event.preventDefault();
            if (!open) toggle(true);
          }
        }}
      >
        {trigger}
      </button>
      {open ? (
        <PopoverPopup
          id={id}
          popup={popup}
          popupLabel={popupLabel}
          shortcut={shortcut}
          sheet={sheet}
          wrapper={wrapper}
          button={button}
          refocus={refocus}
          close={close}
          content={children}
        />
      ) : null}
    </div>
  );
}

/** An open popover's popup: a dropdown under its button, or a bottom sheet over a backdrop. */
function PopoverPopup({
  id,
  popup,
  popupLabel,
  shortcut,
  sheet,
  wrapper,
  button,
  refocus,
  close,
  content,
}: {
  id: string;
  popup: PopoverProps['popup'];
  popupLabel: string;
  shortcut: string | undefined;
  sheet: HTMLElement | null;
  wrapper: RefObject<HTMLDivElement | null>;
  button: RefObject<HTMLButtonElement | null>;
  refocus: RefObject<boolean>;
  close: (giveFocusBack: boolean) => void;
  content: PopoverProps['children'];
}) {
  const panel = useRef<HTMLDivElement>(null);

  useLayoutEffect(() => {
    // Kept inside the window on narrow screens: shifted left by what would overflow.
    const element = panel.current;
    if (!sheet && element) {
      const overflow = element.getBoundingClientRect().right - (innerWidth - EDGE_MARGIN_PX);
      if (overflow > 0) element.style.left = `${-overflow}px`;
    }
    // Closed by Escape or a choice: focus goes back to the button, in the commit that shows
    // the button alone.
    return () => {
      // Read at closing, not now: the flag close() set, and the button that is still there.
      // eslint-disable-next-line react-hooks/exhaustive-deps
      if (refocus.current) button.current?.focus();
    };
  }, [sheet, refocus, button]);

  useEffect(() => {
    const onPointerDown = (event: PointerEvent) => {
      const target = event.target as Node;
      // A sheet's backdrop closes it on its click, so the tap does nothing under it.
      const onBackdrop = target instanceof Element && target.closest('.popover__backdrop');
      if (!inside(wrapper.current, id, target) && !onBackdrop) close(false);
    };
    document.addEventListener('pointerdown', onPointerDown);
    return () => document.removeEventListener('pointerdown', onPointerDown);
  }, [wrapper, id, close]);

  const popupElement = (
    <div
      ref={panel}
      id={id}
      className={`popover__panel popover__panel--${popup}${sheet ? ' popover__panel--sheet' : ''}`}
      role={popup === 'dialog' ? 'dialog' : undefined}
      aria-label={popup === 'dialog' ? popupLabel : undefined}
      onKeyDown={(event) => {
        if (event.key === 'Escape') {
          // This popup's Escape only: not the screen's shortcuts or a dialog under it.
          event.stopPropagation();
          event.preventDefault();
          close(true);
        }
      }}
    >
      {sheet || shortcut ? (
        // What the popup is and its key ("Status  S"): the button and the menu already say
        // both to a screen reader.
        <div className="popover__header" aria-hidden="true">
          <span className="popover__title">{popupLabel}</span>
          {shortcut && !sheet ? (
            <kbd className="popover__key keyboard-only">{shortcut.toUpperCase()}</kbd>
          ) : null}
        </div>
      ) : null}
      {content(() => close(true))}
    </div>
  );
  return sheet
    ? createPortal(
        <>
          <div
            className="popover__backdrop"
            aria-hidden="true"
            onClick={(event) => {
              // Not a click on the row or screen the sheet was opened from.
              event.stopPropagation();
              close(true);
            }}
          />
          {popupElement}
        </>,
        sheet,
      )
    : popupElement;
}

export interface MenuItem {
  value: string;
  label: string;
  /** Drawn before the label (an icon, an avatar), hidden from screen readers. */
  icon?: ReactNode;
  /** Quiet text after the label ("Fri"). */
  hint?: string;
  disabled?: boolean;
}

/**
 * A menu of items (WAI-ARIA menu): ↑/↓ move (wrapping), Home/End jump, typing a letter goes
 * to the next item starting with what was typed, Enter or Space picks. With `selected` the
 * items are radio items and the chosen one is checked and focused first.
 */
export function Menu({
  label,
  items,
  selected,
  onSelect,
}: {
  label: string;
  items: readonly MenuItem[];
  selected?: string | undefined;
  onSelect: (value: string) => void;
}) {
  const list = useRef<HTMLDivElement>(null);
  const typed = useRef({ text: '', at: -Infinity });
  const start = Math.max(
    0,
    items.findIndex((item) => item.value === selected),
  );

  const elements = () =>
    Array.from(list.current?.querySelectorAll<HTMLElement>('[data-menu-item]') ?? []);
  const focusAt = (index: number) => {
    const all = elements();
    all[(index + all.length) % all.length]?.focus();
  };

  useLayoutEffect(() => {
    focusAt(start);
    // Focus goes in once, when the menu opens; after that it follows the keys.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  function onKeyDown(event: KeyboardEvent<HTMLDivElement>) {
    const current = elements().indexOf(document.activeElement as HTMLElement);
    // Any other key ends a type-ahead search.
    if (event.key.length !== 1) typed.current = { text: '', at: -Infinity };
    const pick = () => {
      const item = items[current];
      if (item && !item.disabled) onSelect(item.value);
    };
    switch (event.key) {
      case 'ArrowDown':
        focusAt(current + 1);
        break;
      case 'ArrowUp':
        focusAt(current - 1);
        break;
      case 'Home':
      case 'PageUp':
        focusAt(0);
        break;
      case 'End':
      case 'PageDown':
        focusAt(items.length - 1);
        break;
      case 'Enter':
      case ' ':
        pick();
        break;
      default: {
        if (event.key.length !== 1 || event.ctrlKey || event.metaKey || event.altKey) return;
        const fresh = event.timeStamp - typed.current.at > TYPE_AHEAD_RESET_MS;
        const text = (fresh ? '' : typed.current.text) + event.key.toLowerCase();
        typed.current = { text, at: event.timeStamp };
        // From the item after this one for a new search, so the same letter steps through.
        const from = text.length === 1 ? current + 1 : current;
        for (let step = 0; step < items.length; step++) {
          const index = (from + step) % items.length;
          if (items[index]?.label.toLowerCase().startsWith(text)) {
            focusAt(index);
            break;
          }
        }
      }
    }
    event.preventDefault();
  }

  return (
    <div ref={list} role="menu" aria-label={label} className="menu" onKeyDown={onKeyDown}>
      {items.map((item) => (
        <div
          key={item.value}
          data-menu-item=""
          role={selected === undefined ? 'menuitem' : 'menuitemradio'}
          aria-checked={selected === undefined ? undefined : item.value === selected}
          aria-disabled={item.disabled ? true : undefined}
          tabIndex={-1}
          className="menu__item"
          onClick={() => {
            if (!item.disabled) onSelect(item.value);
          }}
        >
          {item.icon ? (
            <span className="menu__icon" aria-hidden="true">
              {item.icon}
            </span>
          ) : null}
          <span className="menu__label">{item.label}</span>
          {item.hint ? <span className="menu__hint">{item.hint}</span> : null}
          {selected !== undefined ? (
            <span className="menu__check" aria-hidden="true">
              {item.value === selected ? '✓' : ''}
            </span>
          ) : null}
        </div>
      ))}
    </div>
  );
}
