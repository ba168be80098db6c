// Toasts: short, polite messages in a corner of the screen (a deleted task with Undo, a
// reverted edit, a copied link). Ephemeral UI state, so zustand, never Dexie.
import { create } from 'zustand';

/** How long a toast stays unless it has an action (ms). Undo toasts stay for the undo window. */
export const TOAST_DURATION_MS = 5_000;

/** How many toasts show at once: more would cover a phone's screen. */
export const TOASTS_SHOWN_MAX = 3;

export interface ToastAction {
  label: string;
  /** What the button does; a toast with `to` instead is a link to that screen. */
  run?: () => void | Promise<void>;
  /** An in-app path: the action is a link there (to Settings › Rejected changes). */
  to?: string;
  /**
   * The action is also reachable elsewhere (a link to Settings), so the toast may make way
   * for others. Without it the action exists only in the toast (Undo), and a toast without
   * such an action never pushes it out.
   */
  alsoElsewhere?: boolean;
}

export interface Toast {
  id: number;
  message: string;
  tone: 'info' | 'error';
  action?: ToastAction;
  durationMs: number;
  /** Bumped when the toast's text changes, so its time starts again. */
  revision: number;
}

interface ToastState {
  toasts: Toast[];
  show: (toast: {
    message: string;
    tone?: Toast['tone'];
    action?: ToastAction;
    durationMs?: number;
  }) => number;
  dismiss: (id: number) => void;
  /** Changes a toast's text in place (and restarts its time); false once it has gone. */
  update: (id: number, changes: { message?: string; action?: ToastAction }) => boolean;
}

let nextId = 1;

/** Whether losing this toast would lose something the user can do nowhere else (Undo). */
export function holdsAction(toast: Toast): boolean {
  return toast.action !== undefined && !toast.action.alsoElsewhere;
}

/**
 * Where a new toast goes. `toasts` is every live toast in order: the first
 * TOASTS_SHOWN_MAX are on screen, the rest wait for a free place. A new toast takes the
 * place of the oldest one on screen that holds no action of its own; a toast with an Undo
 * may push out an older Undo (the newest undo matters most), but one without never does:
 * it waits instead, and shows (for its full time) once a place frees up.
 */
export function placeToast(toasts: readonly Toast[], toast: Toast): Toast[] {
  const shown = toasts.slice(0, TOASTS_SHOWN_MAX);
  const waiting = toasts.slice(TOASTS_SHOWN_MAX);
  if (shown.length < TOASTS_SHOWN_MAX) return [...shown, toast, ...waiting];
  const victim = shown.find((t) => !holdsAction(t)) ?? (holdsAction(toast) ? shown[0] : undefined);
  if (victim) return [...shown.filter((t) => t !== victim), toast, ...waiting];
  // Waiting news goes stale: only the newest few wait.
  return [...shown, ...[...waiting, toast].slice(-TOASTS_SHOWN_MAX)];
}

export const useToasts = create<ToastState>((set, get) => ({
  toasts: [],
  show({ message, tone = 'info', action, durationMs = TOAST_DURATION_MS }) {
    const id = nextId++;
    const toast: Toast = {
      id,
      message,
      tone,
      durationMs,
      revision: 0,
      ...(action ? { action } : {}),
    };
    set((state) => ({ toasts: placeToast(state.toasts, toast) }));
    return id;
  },
  dismiss(id) {
    set((state) => ({ toasts: state.toasts.filter((t) => t.id !== id) }));
  },
  update(id, changes) {
    if (!get().toasts.some((t) => t.id === id)) return false;
    set((state) => ({
      toasts: state.toasts.map((t) =>
        t.id === id ? { ...t, ...changes, revision: t.revision + 1 } : t,
      ),
    }));
    return true;
  },
}));

/** Shows a toast from outside React (event handlers, repositories' callers). */
export function showToast(toast: Parameters<ToastState['show']>[0]): number {
  return useToasts.getState().show(toast);
}
