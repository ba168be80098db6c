// A button that opens a small popup under it (WAI-ARIA menu button), and the menu to put in
// it. One popover for every property picker: Escape closes it and gives focus back to its
// button, a click outside or focus moving on (Tab) closes it.
import {
  useEffect,
  useId,
  useLayoutEffect,
  useRef,
  useState,
  type KeyboardEvent,
  type ReactNode,
} from 'react';

import './menu.css';

/** Type-ahead letters typed within this long of each other make one search (ms). */
const TYPE_AHEAD_RESET_MS = 500;
/** The popup keeps this far from the window's right edge (px). */
const EDGE_MARGIN_PX = 8;

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
  // `refocus`: closed in a way that gives focus back to the button (Escape, a choice).
  const [{ open, refocus }, setState] = useState({ open: false, refocus: false });
  const id = useId();
  const wrapper = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const panel = useRef<HTMLDivElement>(null);
  const close = (giveFocusBack: boolean) => setState({ open: false, refocus: giveFocusBack });

  useLayoutEffect(() => {
    // In the commit that shows the button alone.
    if (!open && refocus) button.current?.focus();
    // Kept inside the window on narrow screens: shifted left by what would overflow.
    const element = panel.current;
    if (open && element) {
      const overflow = element.getBoundingClientRect().right - (innerWidth - EDGE_MARGIN_PX);
      if (overflow > 0) element.style.left = `${-overflow}px`;
    }
  }, [open, refocus]);

  useEffect(() => {
    if (!open) return;
    const onPointerDown = (event: PointerEvent) => {
      if (!wrapper.current?.contains(event.target as Node)) close(false);
    };
    document.addEventListener('pointerdown', onPointerDown);
    return () => document.removeEventListener('pointerdown', onPointerDown);
  }, [open]);

  return (
    <div
      ref={wrapper}
      className={['popover', className ?? ''].filter(Boolean).join(' ')}
      onBlur={(event) => {
        // Focus gone elsewhere (Tab out of the popup, or a click on another control).
        const next = event.relatedTarget as Node | null;
        if (open && next && !wrapper.current?.contains(next)) close(false);
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
        onClick={() => setState({ open: !open, refocus: false })}
        onKeyDown={(event) => {
          if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
            event.preventDefault();
            setState({ open: true, refocus: false });
          }
        }}
      >
        {trigger}
      </button>
      {open ? (
        <div
          ref={panel}
          id={id}
          className={`popover__panel popover__panel--${popup}`}
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
          {children(() => close(true))}
        </div>
      ) : null}
    </div>
  );
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
