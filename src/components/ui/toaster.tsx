// The toasts of src/lib/toasts.ts, in a corner (bottom right on wide screens, along the bottom
// edge on phones), in a polite live region so they never interrupt typing. Each goes away by
// itself; hovering or focusing one pauses its time. Only the first few show; the others wait
// (src/lib/toasts.ts), and their time starts on screen. A toast that appears over the control
// in use (the one its message is about, as a rule) scrolls the page so that control stays clear.
import { useEffect, useLayoutEffect, useRef, useState } from 'react';

import { Link } from '@/lib/router';
import { TOASTS_SHOWN_MAX, useToasts, type Toast } from '@/lib/toasts';

/** Room kept between the control in use and the toasts when the page moves it clear (px). */
const CLEARANCE_PX = 12;

function ToastItem({ toast }: { toast: Toast }) {
  const dismiss = useToasts((state) => state.dismiss);
  const [held, setHeld] = useState(false);
  /** Time left on screen (ms): a hold pauses it, and it goes on from there. */
  const left = useRef(toast.durationMs);
  useEffect(() => {
    // New text (`revision`) starts the time again.
    left.current = toast.durationMs;
  }, [toast.durationMs, toast.revision]);
  useEffect(() => {
    if (held) return;
    const started = Date.now();
    const timer = setTimeout(() => dismiss(toast.id), left.current);
    return () => {
      clearTimeout(timer);
      left.current -= Date.now() - started;
    };
  }, [held, dismiss, toast.id, toast.durationMs, toast.revision]);
  const { action } = toast;
  return (
    <li
      className={`toast toast--${toast.tone}`}
      onMouseEnter={() => setHeld(true)}
      onMouseLeave={() => setHeld(false)}
      onFocus={() => setHeld(true)}
      onBlur={() => setHeld(false)}
    >
      <span className="toast__message">{toast.message}</span>
      {action?.to !== undefined ? (
        <Link className="toast__action" to={action.to} onClick={() => dismiss(toast.id)}>
          {action.label}
        </Link>
      ) : action ? (
        <button
          type="button"
          className="toast__action"
          onClick={() => {
            dismiss(toast.id);
            void action.run?.();
          }}
        >
          {action.label}
        </button>
      ) : null}
      <button
        type="button"
        className="toast__close"
        aria-label="Dismiss"
        onClick={() => dismiss(toast.id)}
      >
        ×
      </button>
    </li>
  );
}

/** Whether two boxes on screen share any area. */
function overlap(a: DOMRect, b: DOMRect): boolean {
  return a.top < b.bottom && b.top < a.bottom && a.left < b.right && b.left < a.right;
}

export function Toaster() {
  const toasts = useToasts((state) => state.toasts);
  const shown = toasts.slice(0, TOASTS_SHOWN_MAX);
  const listRef = useRef<HTMLUListElement>(null);
  const shownKey = shown.map((toast) => toast.id).join(' ');

  // The user's control (what has focus) must not be under a toast: scroll it clear, when a
  // toast comes and when focus moves while one shows (a delete moves focus to the next row
  // a moment after its toast). Screens keep room for this at their foot (.app-main's
  // bottom padding).
  useLayoutEffect(() => {
    const list = listRef.current;
    if (!list || !shownKey) return;
    const clear = () => {
      const active = document.activeElement;
      if (!(active instanceof HTMLElement) || active === document.body) return;
      if (list.contains(active)) return;
      const toastsBox = list.getBoundingClientRect();
      const box = active.getBoundingClientRect();
      if (overlap(box, toastsBox)) window.scrollBy(0, box.bottom - toastsBox.top + CLEARANCE_PX);
    };
    clear();
    document.addEventListener('focusin', clear);
    return () => document.removeEventListener('focusin', clear);
  }, [shownKey]);

  return (
    <div className="toaster" role="status" aria-live="polite" aria-label="Notifications">
      <ul className="toaster__list" ref={listRef}>
        {shown.map((toast) => (
          <ToastItem key={toast.id} toast={toast} />
        ))}
      </ul>
    </div>
  );
}
