// /lists/:listId — the tasks screen, with the avatars of others viewing the list.
import { useParams } from '@/lib/router';

import { PresenceAvatars } from '@/features/members/components/presence-avatars';
import { TasksScreen } from '@/features/tasks/components/tasks-screen';

export function ListRoute() {
  const { listId = '' } = useParams();
  return <TasksScreen presence={<PresenceAvatars listId={listId} />} />;
}
