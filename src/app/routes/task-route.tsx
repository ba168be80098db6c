// /lists/:listId/tasks/:taskId — the task's own fields, who else has it open, then its files
// and comments: a page of its own on narrow windows, the panel beside its list on wide ones
// (list-route.tsx puts it there).
import { useParams } from '@/lib/router';

import { AttachmentsPanel } from '@/features/attachments/components/attachments-panel';
import { CommentsPanel } from '@/features/comments/components/comments-panel';
import { PresenceAvatars } from '@/features/members/components/presence-avatars';
import {
  TaskDetailScreen,
  type TaskPanelOptions,
} from '@/features/tasks/components/task-detail-screen';

export function TaskRoute({ panel }: { panel?: TaskPanelOptions | undefined }) {
  const { listId = '', taskId = '' } = useParams();
  return (
    <TaskDetailScreen
      panel={panel}
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
