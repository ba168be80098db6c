// PLACEHOLDER: replaced by the feature's real screen.
export function WelcomeScreen(props: Record<string, unknown>) {
  void props;
  return <h1>Welcome</h1>;
}
