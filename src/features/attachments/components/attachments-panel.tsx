// PLACEHOLDER: replaced by the feature's real component.
export function AttachmentsPanel(props: { taskId: string; listId: string }) {
  void props;
  return null;
}
