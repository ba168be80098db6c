// PLACEHOLDER: replaced by the feature's real screen.
export function SignInScreen(props: Record<string, unknown>) {
  void props;
  return <h1>Sign in</h1>;
}
