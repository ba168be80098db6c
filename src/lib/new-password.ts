// The rule a new password follows wherever one is chosen (Settings › Password, the reset
// screen a recovery link opens): the sign-up screen's lengths (auth.ts), typed twice. Kept out
// of auth.ts, which the app shell carries, since only those two lazy screens need it.
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './auth';

export interface NewPasswordInput {
  password: string;
  repeat: string;
}

export type NewPasswordErrors = Partial<Record<keyof NewPasswordInput | '_', string>>;

export const NEW_PASSWORD_MESSAGES = {
  empty: 'Enter a new password.',
  short: `Password must be at least ${PASSWORD_MIN_LENGTH} characters.`,
  long: `Password can be at most ${PASSWORD_MAX_LENGTH} characters.`,
  mismatch: "The two passwords don't match.",
  repeat: 'Enter the new password again.',
} as const;

/** The form's rules, checked before anything is sent; empty when the input may be sent. */
export function checkNewPassword({ password, repeat }: NewPasswordInput): NewPasswordErrors {
  const errors: NewPasswordErrors = {};
  // No trimming: spaces are characters of a password like any other.
  if (password.length === 0) errors.password = NEW_PASSWORD_MESSAGES.empty;
  else if (password.length < PASSWORD_MIN_LENGTH) errors.password = NEW_PASSWORD_MESSAGES.short;
  else if (password.length > PASSWORD_MAX_LENGTH) errors.password = NEW_PASSWORD_MESSAGES.long;
  if (repeat.length === 0) errors.repeat = NEW_PASSWORD_MESSAGES.repeat;
  else if (repeat !== password) errors.repeat = NEW_PASSWORD_MESSAGES.mismatch;
  return errors;
}
