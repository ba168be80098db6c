// An email address box: the keyboard, capitalisation and spelling settings every address field
// wants, so a phone neither capitalises nor "corrects" an address. The caller picks
// autoComplete ('username' where it names the account, 'email' for a new address).
import type { ComponentProps } from 'react';

import { TextField } from './field';

export function EmailField(props: Omit<ComponentProps<typeof TextField>, 'type'>) {
  return (
    <TextField type="email" inputMode="email" autoCapitalize="none" spellCheck={false} {...props} />
  );
}
