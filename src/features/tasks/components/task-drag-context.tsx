// Reordering the task list by pointer: dnd-kit's context around the rows, and what a screen
// reader hears as a task is picked up, moved and dropped. The keyboard carries a task without
// dnd-kit (hooks/use-keyboard-carry.ts), so only its pointer sensor is here.
import {
  closestCenter,
  DndContext,
  PointerSensor,
  useSensor,
  useSensors,
  type Announcements,
  type DragEndEvent,
  type UniqueIdentifier,
} from '@dnd-kit/core';
import { SortableContext, verticalListSortingStrategy } from '@dnd-kit/sortable';
import type { ReactNode } from 'react';

import type { TaskRow } from '../task-filter';

/** Pointer travel before a drag starts (px), so clicks on the handle stay clicks. */
const DRAG_ACTIVATION_PX = 6;

const SCREEN_READER_INSTRUCTIONS = {
  draggable:
    'To reorder, press Space or Enter, move with the arrow keys, then press Space or Enter again to drop, or Escape to cancel. Alt with the up or down arrow moves the focused task one place.',
};

export interface TaskDragContextProps {
  /** The tasks as shown. */
  rows: readonly TaskRow[];
  /** Their ids, in the same order. */
  ids: string[];
  onDragStart: () => void;
  /** A drag ended: dropped, or cancelled. */
  onDragStop: () => void;
  /** A drop asks for the task at `from` to go to `to`. */
  onMove: (from: number, to: number) => void;
  children: ReactNode;
}

export function TaskDragContext({
  rows,
  ids,
  onDragStart,
  onDragStop,
  onMove,
  children,
}: TaskDragContextProps) {
  const sensors = useSensors(
    useSensor(PointerSensor, { activationConstraint: { distance: DRAG_ACTIVATION_PX } }),
  );

  const titleOf = (id: UniqueIdentifier) => rows.find((task) => task.id === id)?.title ?? 'Task';
  const positionOf = (id: UniqueIdentifier | undefined) =>
    id === undefined ? -1 : ids.indexOf(String(id));
  const announcements: Announcements = {
    onDragStart: ({ active }) =>
      `Picked up ${titleOf(active.id)}, position ${positionOf(active.id) + 1} of ${ids.length}.`,
    onDragOver: ({ active, over }) =>
      over
        ? `${titleOf(active.id)} moved to position ${positionOf(over.id) + 1} of ${ids.length}.`
        : `${titleOf(active.id)} is no longer over the list.`,
    onDragEnd: ({ active, over }) =>
      over
        ? `${titleOf(active.id)} dropped at position ${positionOf(over.id) + 1} of ${ids.length}.`
        : `${titleOf(active.id)} dropped back in place.`,
    onDragCancel: ({ active }) => `Moving cancelled. ${titleOf(active.id)} dropped back in place.`,
  };

  function onDragEnd({ active, over }: DragEndEvent) {
    onDragStop();
    if (!over || active.id === over.id) return;
    onMove(positionOf(active.id), positionOf(over.id));
  }

  return (
    <DndContext
      sensors={sensors}
      collisionDetection={closestCenter}
      onDragStart={onDragStart}
      onDragEnd={onDragEnd}
      onDragCancel={onDragStop}
      accessibility={{ announcements, screenReaderInstructions: SCREEN_READER_INSTRUCTIONS }}
    >
      <SortableContext items={ids} strategy={verticalListSortingStrategy}>
        {children}
      </SortableContext>
    </DndContext>
  );
}
