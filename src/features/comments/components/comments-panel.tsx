// PLACEHOLDER: replaced by the feature's real component.
export function CommentsPanel(props: { taskId: string; listId: string }) {
  void props;
  return null;
}
