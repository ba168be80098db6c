// Reordering tasks by keyboard, without dnd-kit: Space or Enter on a task's grip picks it up,
// arrows move it one place, Space or Enter drops it (Tab too, and goes on), Escape puts it
// back. dnd-kit's keyboard sensor moved the task by geometry (the rows' measured boxes, a
// smooth scroll, the row "over" found in a later render), so a key that came before those
// settled was lost or dropped the task where it had been; a carry moves by index, in the key's
// own handler, and shows the new order at once.
import {
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  type KeyboardEvent,
  type RefObject,
} from 'react';

import type { TaskRow } from '../task-filter';
import { moved, type ShownRows } from './shown-rows';
import type { OptimisticOrder } from './use-optimistic-order';
import type { RowScroller } from './use-window-rows';

/** A task carried by keyboard: where it is shown until it is dropped. */
export interface Carry {
  id: string;
  to: number;
}

export interface KeyboardCarry {
  /** The task carried, if any. */
  carry: Carry | null;
  /** The tasks as shown, the carried one where it is carried to. */
  ordered: TaskRow[];
  /** The task whose grip gets the focus back once the new order is rendered. */
  refocusRef: RefObject<string | null>;
  /** A key on a task's grip. */
  carryKey: (id: string, event: KeyboardEvent<HTMLElement>) => void;
  /** The grip lost the focus: a carried task goes back. */
  carryBlur: (id: string) => void;
  /** Ends a carry without a word (a pointer drag took over). */
  endCarry: () => void;
}

export function useKeyboardCarry({
  placed,
  latest,
  announce,
  commitMove,
}: {
  placed: TaskRow[];
  latest: RefObject<ShownRows>;
  announce: (text: string) => void;
  commitMove: OptimisticOrder['commitMove'];
}): KeyboardCarry {
  // A task carried by keyboard, shown at `to` until it is dropped. Its list can change under
  // it (another device's edit): it stays at `to` among whatever rows there are.
  const [carry, setCarry] = useState<Carry | null>(null);
  const carryRef = useRef<Carry | null>(null);
  const ordered = useMemo(() => {
    const from = carry ? placed.findIndex((task) => task.id === carry.id) : -1;
    return carry && from >= 0 ? moved(placed, from, Math.min(carry.to, placed.length - 1)) : placed;
  }, [placed, carry]);

  // A carried row that the new order moves in the DOM loses the focus (its grip is taken
  // out and put back): that blur is not the user leaving, and the focus is put back on the
  // grip of the task named here, once the row is in its new place.
  const refocusRef = useRef<string | null>(null);

  function updateCarry(next: Carry | null) {
    carryRef.current = next;
    setCarry(next);
  }

  function cancelCarry(task: TaskRow) {
    updateCarry(null);
    announce(`Moving cancelled. ${task.title} dropped back in place.`);
  }

  function carryKey(id: string, event: KeyboardEvent<HTMLElement>) {
    const rows = latest.current.placed;
    const from = rows.findIndex((task) => task.id === id);
    const task = rows[from];
    if (!task) return;
    const count = rows.length;
    const current = carryRef.current?.id === id ? carryRef.current : null;
    // While a task is carried, no other key acts (a shortcut would take the focus away).
    if (current && event.key !== 'Tab') event.preventDefault();
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    const drop = event.key === ' ' || event.key === 'Enter';
    if (!current) {
      if (!drop) return;
      event.preventDefault();
      updateCarry({ id, to: from });
      announce(`Picked up ${task.title}, position ${from + 1} of ${count}.`);
      return;
    }
    const to = Math.min(current.to, count - 1);
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      const next = Math.min(count - 1, Math.max(0, to + (event.key === 'ArrowUp' ? -1 : 1)));
      if (next === to) return;
      refocusRef.current = id;
      updateCarry({ id, to: next });
      announce(`${task.title} moved to position ${next + 1} of ${count}.`);
    } else if (drop || event.key === 'Tab') {
      // Tab drops it and goes on to the next control.
      updateCarry(null);
      const said = `${task.title} dropped at position ${to + 1} of ${count}.`;
      if (to === from) announce(said);
      else commitMove(from, to, said);
    } else if (event.key === 'Escape') {
      refocusRef.current = id;
      cancelCarry(task);
    }
  }

  function carryBlur(id: string) {
    // Leaving the grip (a click elsewhere, another window) puts the task back.
    if (carryRef.current?.id !== id || refocusRef.current === id) return;
    const task = latest.current.placed.find((t) => t.id === id);
    if (task) cancelCarry(task);
  }

  return { carry, ordered, refocusRef, carryKey, carryBlur, endCarry: () => updateCarry(null) };
}

/**
 * The carried task's grip keeps the focus as it moves and when it is put back, and its row
 * stays in sight (scrolled to by index: it may be out of the DOM).
 */
export function useCarriedInSight(
  { carry, ordered, refocusRef }: KeyboardCarry,
  rowElement: (id: string) => HTMLElement | null,
  scroller: RowScroller,
): void {
  useLayoutEffect(() => {
    const id = refocusRef.current;
    refocusRef.current = null;
    const grip = id ? rowElement(id)?.querySelector<HTMLElement>('.tasks-row__handle') : null;
    if (grip && document.activeElement !== grip) grip.focus({ preventScroll: true });
    if (!carry) return;
    const row = rowElement(carry.id);
    if (!row) return;
    const box = row.getBoundingClientRect();
    if (box.top < 0 || box.bottom > window.innerHeight) {
      scroller.scrollToIndex(Math.min(carry.to, ordered.length - 1), { align: 'auto' });
    }
  });
}
