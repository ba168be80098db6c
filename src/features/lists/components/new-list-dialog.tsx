// The "New list" dialog, opened from the lists screen, the sidebar and the phone's bottom bar.
// The shell loads it on first use (its own chunk, precached, so offline too).
import { Dialog } from '@/components/ui/dialog';

import '../lists.css';
import { CreateListForm } from './create-list-form';

export function NewListDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  return (
    <Dialog open={open} title="New list" onClose={onClose}>
      <CreateListForm onDone={onClose} />
    </Dialog>
  );
}
