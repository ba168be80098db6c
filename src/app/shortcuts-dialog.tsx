// The list of keyboard shortcuts (`?`, or the header's "?" button), in groups by where they
// work. Its own chunk, loaded the first time it is asked for (from the precache, so offline
// too): the app shell paints the first screen without it (issue 16). The layout keeps it
// mounted once loaded.
import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';

import './shortcuts-dialog.css';

/** A group of shortcuts: where they work, and each key with what it does. */
export interface ShortcutGroup {
  title: string;
  keys: readonly (readonly [keys: string, action: string])[];
}

/** The keys that open a task's property menus: on a row, the open task, the bulk bar. */
const PROPERTY_SHORTCUTS = [
  ['s', 'Status'],
  ['p', 'Priority'],
  ['a', 'Assignee'],
  ['d', 'Due date'],
] as const;

/**
 * Every shortcut, by where it works. A list written out here rather than gathered from the
 * handlers, whose modules this chunk must not pull in; shortcuts-dialog.test.tsx holds it to
 * the keys the rows, the bulk bar and the open task carry.
 */
export const SHORTCUTS: readonly ShortcutGroup[] = [
  {
    title: 'Anywhere',
    keys: [
      ['Ctrl / ⌘ + K', 'Jump to a list or task, run an action'],
      ['n', 'New task (in a list) or new list'],
      ['/', 'Search tasks'],
      ['Ctrl / ⌘ + Z', 'Undo the last change'],
      ['Shift + Ctrl / ⌘ + Z, Ctrl + Y', 'Redo'],
      ['g then l', 'Go to lists'],
      ['g then s', 'Go to settings'],
      ['Esc', 'Cancel editing, close a dialog'],
      ['?', 'Show these shortcuts'],
    ],
  },
  {
    title: 'In a list',
    keys: [
      ['j / k', 'Next / previous task'],
      ['Enter / o', 'Open the focused task'],
      ['x', 'Select the focused task'],
      ['Shift + j / k', 'Select the next / previous task too'],
      ['Ctrl / ⌘ + A', 'Select every task shown'],
      ['Esc', 'Clear the selection'],
      ['F2', "Edit the focused task's title"],
      ['Alt + ↑ / ↓', 'Move the focused task up or down'],
    ],
  },
  {
    title: 'On the focused task or a selection',
    keys: [
      ...PROPERTY_SHORTCUTS,
      ['m', 'Move the selection to another list'],
      ['Delete / Backspace', 'Delete (with Undo)'],
    ],
  },
  {
    title: 'On the open task',
    keys: [
      ...PROPERTY_SHORTCUTS,
      ['Delete / Backspace', 'Delete (with Undo)'],
      ['Esc', 'Close the task beside the list'],
    ],
  },
];

export function ShortcutsDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  return (
    <Dialog
      open={open}
      title="Keyboard shortcuts"
      onClose={onClose}
      actions={
        <Button variant="primary" onClick={onClose}>
          Close
        </Button>
      }
    >
      {SHORTCUTS.map((group) => (
        <section key={group.title} className="shortcuts__group">
          <h3 className="shortcuts__title">{group.title}</h3>
          <dl className="shortcuts">
            {group.keys.map(([keys, action]) => (
              <div key={keys} className="shortcuts__row">
                <dt>
                  <kbd>{keys}</kbd>
                </dt>
                <dd>{action}</dd>
              </div>
            ))}
          </dl>
        </section>
      ))}
    </Dialog>
  );
}
