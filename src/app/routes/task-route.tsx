// /lists/:listId/tasks/:taskId — the task's own fields, then its files and comments.
import { AttachmentsPanel } from '@/features/attachments/components/attachments-panel';
import { CommentsPanel } from '@/features/comments/components/comments-panel';
import { TaskDetailScreen } from '@/features/tasks/components/task-detail-screen';

export function TaskRoute() {
  return (
    <TaskDetailScreen
      renderExtras={({ taskId, listId }) => (
        <>
          <AttachmentsPanel taskId={taskId} listId={listId} />
          <CommentsPanel taskId={taskId} listId={listId} />
        </>
      )}
    />
  );
}
