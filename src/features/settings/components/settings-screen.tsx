// PLACEHOLDER: replaced by the feature's real screen.
export function SettingsScreen(props: Record<string, unknown>) {
  void props;
  return <h1>Settings</h1>;
}
