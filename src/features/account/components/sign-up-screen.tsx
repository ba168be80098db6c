// PLACEHOLDER: replaced by the feature's real screen.
export function SignUpScreen(props: Record<string, unknown>) {
  void props;
  return <h1>Sign up</h1>;
}
