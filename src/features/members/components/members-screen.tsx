// PLACEHOLDER: replaced by the feature's real screen.
export function MembersScreen(props: Record<string, unknown>) {
  void props;
  return <h1>Members</h1>;
}
