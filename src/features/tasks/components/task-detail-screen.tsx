// PLACEHOLDER: replaced by the feature's real screen.
import type { ReactNode } from 'react';

export function TaskDetailScreen(props: {
  renderExtras?: (task: { taskId: string; listId: string }) => ReactNode;
}) {
  void props;
  return <h1>Task</h1>;
}
