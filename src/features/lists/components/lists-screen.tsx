// PLACEHOLDER: replaced by the feature's real screen.
export function ListsScreen(props: Record<string, unknown>) {
  void props;
  return <h1>Lists</h1>;
}
