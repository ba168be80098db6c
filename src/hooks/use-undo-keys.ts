// Ctrl/Cmd+Z undoes the session's last edit, Shift+Ctrl/Cmd+Z (and Ctrl+Y off a Mac) redoes
// it (lib/undo.ts); in a text field the field's own undo wins.
import { useEffect } from 'react';

import { useServices } from '@/lib/services';
import { loadUndo, rawSync } from '@/data/undo-services';

import { isTypingTarget } from './use-shortcut';

/** Inputs that hold no text of their own to undo (a task's checkbox, a button). */
const TEXTLESS_INPUTS = new Set([
  'checkbox',
  'radio',
  'button',
  'submit',
  'reset',
  'range',
  'color',
  'file',
]);

/** Whether the browser's own undo belongs to the focused element. */
export function hasOwnUndo(target: EventTarget | null): boolean {
  if (target instanceof HTMLInputElement && TEXTLESS_INPUTS.has(target.type)) return false;
  if (target instanceof HTMLSelectElement) return false;
  return isTypingTarget(target);
}

/** Which history key a key press is, if any. */
export function undoKey(event: KeyboardEvent, mac: boolean): 'undo' | 'redo' | null {
  const mod = mac ? event.metaKey : event.ctrlKey;
  if (!mod || event.altKey) return null;
  const key = event.key.toLowerCase();
  if (key === 'z') return event.shiftKey ? 'redo' : 'undo';
  if (key === 'y' && !mac && !event.shiftKey) return 'redo';
  return null;
}

const isMac = () => /mac|iphone|ipad/i.test(navigator.platform || navigator.userAgent);

export function useUndoKeys(): void {
  const { sync } = useServices();
  useEffect(() => {
    const mac = isMac();
    const onKey = (event: KeyboardEvent) => {
      const which = undoKey(event, mac);
      if (!which || event.defaultPrevented || hasOwnUndo(event.target)) return;
      event.preventDefault();
      void loadUndo().then(({ undoerOf }) => {
        const undoer = undoerOf(rawSync(sync));
        return which === 'undo' ? undoer.undo() : undoer.redo();
      });
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [sync]);
}
