// Running a repository write from a screen: a refusal before anything was queued comes back
// as messages per field (shown inline, the field stays editable); a full device or anything
// unexpected becomes a toast. Nothing here ever drops a write the repository accepted.
import { isSyncError, type FieldErrors } from '@sync/index';
import { errorMessage } from '@/lib/error-messages';
import { useInstallPrompt } from '@/lib/pwa/install-prompt';
import { requestPersistenceAfterFirstSave } from '@/lib/pwa/storage-persistence';
import { showToast } from '@/lib/toasts';

export type WriteResult<T> =
  { ok: true; value: T } | { ok: false; errors: FieldErrors; code: string };

export async function attempt<T>(
  write: () => Promise<T>,
  options: { creates?: boolean } = {},
): Promise<WriteResult<T>> {
  try {
    const value = await write();
    if (options.creates) useInstallPrompt.getState().markCreated();
    requestPersistenceAfterFirstSave();
    return { ok: true, value };
  } catch (error) {
    if (isSyncError(error)) {
      const fields =
        'fields' in error && error.fields && typeof error.fields === 'object'
          ? (error.fields as FieldErrors)
          : { _: errorMessage(error.code) };
      if (error.code === 'QUOTA_EXCEEDED') {
        showToast({ message: errorMessage('QUOTA_EXCEEDED'), tone: 'error' });
      }
      return { ok: false, errors: fields, code: error.code };
    }
    console.error('[outpost] write failed', error);
    const message = error instanceof Error ? error.message : String(error);
    showToast({ message: `Couldn't save: ${message}`, tone: 'error' });
    return { ok: false, errors: { _: message }, code: 'UNKNOWN' };
  }
}
