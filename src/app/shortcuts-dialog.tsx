// The list of keyboard shortcuts (`?`, or the header's "?" button). Its own chunk, loaded the
// first time it is asked for (from the precache, so offline too): the app shell paints the
// first screen without it (issue 16). The layout keeps it mounted once loaded.
import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';

export const SHORTCUTS: readonly (readonly [keys: string, action: string])[] = [
  ['Ctrl / ⌘ + K', 'Jump to a list or task, run an action'],
  ['n', 'New task (in a list) or new list'],
  ['/', 'Search tasks'],
  ['j / k', 'Next / previous task'],
  ['Enter / o', 'Open the focused task'],
  ['x', 'Select the focused task'],
  ['F2', "Edit the focused task's title"],
  ['Esc', 'Cancel editing, close a dialog'],
  ['Alt + ↑ / ↓', 'Move the focused task up or down'],
  ['Ctrl / ⌘ + Z', 'Undo the last change'],
  ['Shift + Ctrl / ⌘ + Z, Ctrl + Y', 'Redo'],
  ['g then l', 'Go to lists'],
  ['g then s', 'Go to settings'],
  ['?', 'Show these shortcuts'],
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
      <dl className="shortcuts">
        {SHORTCUTS.map(([keys, action]) => (
          <div key={keys} className="shortcuts__row">
            <dt>
              <kbd>{keys}</kbd>
            </dt>
            <dd>{action}</dd>
          </div>
        ))}
      </dl>
    </Dialog>
  );
}
