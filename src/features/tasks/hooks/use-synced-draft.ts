// A field's draft that follows the stored value while the user has not changed it, and
// keeps the user's typing when it has (an edit from another device must not wipe it).
import { useState } from 'react';

export function useSyncedDraft(value: string): [string, (draft: string) => void] {
  const [state, setState] = useState({ base: value, draft: value });
  let current = state;
  if (value !== state.base) {
    // The stored value moved (our own save, or someone else's edit): adopt it unless the
    // user is part-way through typing something else.
    current = { base: value, draft: state.draft === state.base ? value : state.draft };
    setState(current);
  }
  return [current.draft, (draft: string) => setState((prev) => ({ ...prev, draft }))];
}
