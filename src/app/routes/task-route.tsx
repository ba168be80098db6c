// /lists/:listId/tasks/:taskId — the task's own fields, who else has it open, then its files
// and comments.
import { useParams } from '@/lib/router';

import { AttachmentsPanel } from '@/features/attachments/components/attachments-panel';
import { CommentsPanel } from '@/features/comments/components/comments-panel';
import { PresenceAvatars } from '@/features/members/components/presence-avatars';
import { TaskDetailScreen } from '@/features/tasks/components/task-detail-screen';

export function TaskRoute() {
  const { listId = '', taskId = '' } = useParams();
  return (
    <TaskDetailScreen
      presence={<PresenceAvatars listId={listId} taskId={taskId} />}
      renderExtras={({ taskId, listId }) => (
        <>
          <AttachmentsPanel taskId={taskId} listId={listId} />
          <CommentsPanel taskId={taskId} listId={listId} />
        </>
      )}
    />
  );
}
