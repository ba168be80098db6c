// PLACEHOLDER: replaced by the feature's real component.
export function PresenceAvatars(props: { listId: string }) {
  void props;
  return null;
}
