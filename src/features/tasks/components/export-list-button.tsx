// The "Export" dialog of a list's tasks screen (product.md §7 export-list), opened from the
// header's Export button or its phone menu: the server's copy of the list as a CSV (one row per task, for a spreadsheet) or JSON (list, members, tasks with comments)
// download. It is made by the export-list function, so it needs an account and a
// connection, and says so rather than failing; changes still queued here are not in it yet.
// The file is named after the list and the day (`Groceries 2026-11-27.csv`).
import { useId, useState } from 'react';

import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';
import { FormError, SelectField } from '@/components/ui/field';
import { useOnline } from '@/hooks/use-online';
import type { ApiFailure, ExportFormat } from '@/lib/api';
import { useServices } from '@/lib/services';
import { showToast } from '@/lib/toasts';

import { downloadFile, exportFileName } from '@/utils/download-file';

export const EXPORT_NEEDS_CONNECTION = 'Exporting needs a connection.';

const FORMAT_HINTS: Readonly<Record<ExportFormat, string>> = {
  csv: 'One row per task, for a spreadsheet.',
  json: 'The list with its members, tasks and comments.',
};

/** What went wrong, in plain words, by the failure's code (never the server's own text). */
export function exportFailureText(failure: ApiFailure): string {
  switch (failure.code) {
    case 'OFFLINE':
    case 'TIMEOUT':
      return "Couldn't reach the server. Check the connection and try again.";
    case 'AUTH_EXPIRED':
      return 'Your session has ended. Sign in again to export.';
    case 'NOT_FOUND':
    case 'PERMISSION_DENIED':
      return "The server doesn't have this list for you: it may not have synced yet, or you are no longer a member.";
    case 'RATE_LIMITED':
      return 'Too many requests just now. Try again in a minute.';
    default:
      return "The server couldn't make the file just now. Try again in a moment.";
  }
}

export function ExportListDialog({
  open,
  onClose,
  listId,
  listName,
  hasPending,
}: {
  open: boolean;
  onClose: () => void;
  listId: string;
  listName: string;
  /** Changes of this list still queued on the device (the server's copy lacks them). */
  hasPending: boolean;
}) {
  const { supabase, now } = useServices();
  const online = useOnline();
  const [format, setFormat] = useState<ExportFormat>('csv');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const reasonId = useId();

  function close() {
    onClose();
    setError(undefined);
  }

  async function run() {
    setBusy(true);
    setError(undefined);
    // The export's code (and supabase-js's functions client) loads on the first "Download".
    const { exportList } = await import('@/lib/api');
    const result = await exportList(supabase, listId, format);
    setBusy(false);
    if (!result.ok) {
      setError(exportFailureText(result));
      return;
    }
    // Named here, not by the server: its Content-Disposition is unreadable cross-origin.
    const fileName = exportFileName(listName, now(), format);
    downloadFile(result.blob, fileName);
    close();
    showToast({ message: `Downloaded ${fileName}` });
  }

  return (
    <Dialog
      open={open}
      title={`Export “${listName}”`}
      onClose={close}
      actions={
        <>
          <Button onClick={close}>Cancel</Button>
          <Button
            variant="primary"
            disabled={busy || !online}
            aria-describedby={online ? undefined : reasonId}
            onClick={() => void run()}
          >
            {busy ? 'Preparing…' : 'Download'}
          </Button>
        </>
      }
    >
      <SelectField
        label="Format"
        value={format}
        hint={FORMAT_HINTS[format]}
        onChange={(event) => setFormat(event.currentTarget.value as ExportFormat)}
      >
        <option value="csv">CSV</option>
        <option value="json">JSON</option>
      </SelectField>
      {online ? null : (
        <p id={reasonId} className="tasks-export__note">
          {EXPORT_NEEDS_CONNECTION}
        </p>
      )}
      {hasPending ? (
        <p className="tasks-export__note">
          Changes on this device that haven&apos;t synced yet won&apos;t be in the file.
        </p>
      ) : null}
      <FormError message={error} />
    </Dialog>
  );
}
