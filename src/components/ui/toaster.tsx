// The toasts of src/lib/toasts.ts, bottom of the screen, in a polite live region so they
// never interrupt typing. Each goes away by itself; hovering or focusing one holds it. Only
// the first few show; the others wait (src/lib/toasts.ts), and their time starts on screen.
import { useEffect, useState } from 'react';

import { TOASTS_SHOWN_MAX, useToasts, type Toast } from '@/lib/toasts';

function ToastItem({ toast }: { toast: Toast }) {
  const dismiss = useToasts((state) => state.dismiss);
  const [held, setHeld] = useState(false);
  useEffect(() => {
    if (held) return;
    const timer = setTimeout(() => dismiss(toast.id), toast.durationMs);
    return () => clearTimeout(timer);
    // `revision`: new text starts the time again.
  }, [held, dismiss, toast.id, toast.durationMs, toast.revision]);
  return (
    <li
      className={`toast toast--${toast.tone}`}
      onMouseEnter={() => setHeld(true)}
      onMouseLeave={() => setHeld(false)}
      onFocus={() => setHeld(true)}
      onBlur={() => setHeld(false)}
    >
      <span className="toast__message">{toast.message}</span>
      {toast.action ? (
        <button
          type="button"
          className="toast__action"
          onClick={() => {
            dismiss(toast.id);
            void toast.action?.run();
          }}
        >
          {toast.action.label}
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

export function Toaster() {
  const toasts = useToasts((state) => state.toasts);
  return (
    <div className="toaster" role="status" aria-live="polite" aria-label="Notifications">
      <ul className="toaster__list">
        {toasts.slice(0, TOASTS_SHOWN_MAX).map((toast) => (
          <ToastItem key={toast.id} toast={toast} />
        ))}
      </ul>
    </div>
  );
}
