// PLACEHOLDER: replaced by the feature's real screen.
export function InviteScreen(props: Record<string, unknown>) {
  void props;
  return <h1>Invite</h1>;
}
