// Attaching a file to a task (the task screen, the share target): loaded by the repositories
// on first use, so the app shell does without it.
import type { FileRecord, Store } from '@sync/index';

import type { RepoContext } from './repositories';
import { ATTACHMENT_EXTENSIONS, ATTACHMENTS_PER_TASK_MAX, attachmentInput } from './schema';
import { validate, ValidationError } from '@sync/index';
import type { OutpostDeviceRows } from './rows';

export function createAttachmentWrites({
  store,
  ctx,
}: {
  store: Pick<Store<OutpostDeviceRows>, 'blobTransaction' | 'live' | 'insert'>;
  ctx: RepoContext;
}) {
  const { db, rows } = ctx;
  return {
    /**
     * Attaches a file to a task: the bytes go to `_files` for upload (and offline viewing),
     * the row is queued; the engine uploads before it pushes the row (I6).
     */
    async add(
      taskId: string,
      file: Blob,
      fileName: string,
      size?: { width: number; height: number },
    ): Promise<string> {
      const checked = validate(attachmentInput, {
        file_name: fileName,
        mime_type: file.type,
        size_bytes: file.size,
      });
      if (!checked.ok) {
        const code = checked.errors.size_bytes
          ? 'FILE_TOO_LARGE'
          : checked.errors.mime_type
            ? 'FILE_TYPE'
            : 'VALIDATION_FAILED';
        throw new ValidationError(checked.errors, code);
      }
      const id = ctx.newId();
      await store.blobTransaction(['tasks', 'attachments', '_files'], async () => {
        const task = await store.live('tasks', taskId);
        const listId = task.list_id;
        const existing = await rows('attachments').where('task_id').equals(taskId).toArray();
        if (existing.filter((a) => !a.deleted_at).length >= ATTACHMENTS_PER_TASK_MAX) {
          throw new ValidationError({
            _: `A task can have at most ${ATTACHMENTS_PER_TASK_MAX} attachments.`,
          });
        }
        const ext = ATTACHMENT_EXTENSIONS[checked.value.mime_type];
        const objectPath = `${listId}/${taskId}/${id}.${ext}`;
        const record: FileRecord = {
          id,
          blob: file,
          objectPath,
          state: 'queued',
          attempts: 0,
          listId,
        };
        await db._files.put(record);
        await store.insert('attachments', {
          id,
          task_id: taskId,
          list_id: listId,
          object_path: objectPath,
          ...checked.value,
          width: size?.width ?? null,
          height: size?.height ?? null,
          created_by: ctx.userId(),
        });
      });
      return id;
    },
  };
}
