// The open task's single keys (issue 40): the key a chip carries (s status, p priority, d due
// date, a assignee: its `data-shortcut`) opens that chip, Delete or Backspace deletes the
// task (with Undo, as its Delete button). Never while typing, in a field, a popup or a
// dialog, or with a modifier held. Beside a list, only while focus is in the task's panel
// (the list's rows have the same keys for themselves); as a full page, from the page too.
// Heard first (the capture phase), as a focused row's keys are by its list: before the app's
// own single keys on the window ("g" then "s": Settings), whichever was added first.
import { useEffect, useRef, type RefObject } from 'react';

import { isTypingTarget } from '@/hooks/use-shortcut';

export interface TaskScreenKeysOptions {
  /** The task screen (its section, or the panel beside the list). */
  root: RefObject<HTMLElement | null>;
  /** Beside a list: keys count only from inside the panel. */
  inPanel: boolean;
  /** The task can be changed here (an editor's, loaded). */
  enabled: boolean;
  onDelete: () => void;
}

/** Listens for the open task's single keys on the window while `enabled`. */
export function useTaskScreenKeys({ root, inPanel, enabled, onDelete }: TaskScreenKeysOptions) {
  const latest = useRef({ inPanel, onDelete });
  useEffect(() => {
    latest.current = { inPanel, onDelete };
  });
  useEffect(() => {
    if (!enabled) return;
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
      const screen = root.current;
      const target = event.target;
      if (!screen || isTypingTarget(target)) return;
      const inside = target instanceof Node && screen.contains(target);
      if (!inside && (latest.current.inPanel || target !== document.body)) return;
      // A menu or a calendar has keys of its own (a Backspace there is not a delete).
      if (target instanceof Element && target.closest('.popover__panel, [role="dialog"]')) return;

      if (event.key === 'Delete' || event.key === 'Backspace') {
        event.preventDefault();
        latest.current.onDelete();
        return;
      }
      const chip = Array.from(screen.querySelectorAll<HTMLElement>('[data-shortcut]')).find(
        (element) => element.dataset.shortcut === event.key,
      );
      if (chip) {
        event.preventDefault();
        chip.click();
      }
    };
    window.addEventListener('keydown', onKeyDown, true);
    return () => window.removeEventListener('keydown', onKeyDown, true);
  }, [enabled, root]);
}
