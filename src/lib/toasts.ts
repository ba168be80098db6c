// Toasts: short, polite messages at the bottom of the screen (a deleted task with Undo, a
// reverted edit, a copied link). Ephemeral UI state, so zustand, never Dexie.
import { create } from 'zustand';

/** How long a toast stays unless it has an action (ms). Undo toasts stay for the undo window. */
export const TOAST_DURATION_MS = 5_000;

export interface ToastAction {
  label: string;
  run: () => void | Promise<void>;
}

export interface Toast {
  id: number;
  message: string;
  tone: 'info' | 'error';
  action?: ToastAction;
  durationMs: number;
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
}

let nextId = 1;

export const useToasts = create<ToastState>((set) => ({
  toasts: [],
  show({ message, tone = 'info', action, durationMs = TOAST_DURATION_MS }) {
    const id = nextId++;
    const toast: Toast = { id, message, tone, durationMs, ...(action ? { action } : {}) };
    // At most three at once: the oldest goes first.
    set((state) => ({ toasts: [...state.toasts, toast].slice(-3) }));
    return id;
  },
  dismiss(id) {
    set((state) => ({ toasts: state.toasts.filter((t) => t.id !== id) }));
  },
}));

/** Shows a toast from outside React (event handlers, repositories' callers). */
export function showToast(toast: Parameters<ToastState['show']>[0]): number {
  return useToasts.getState().show(toast);
}
