// After a refused submit, focus goes to the first thing that needs fixing (in form order),
// so keyboard and screen-reader users land on the message instead of hunting for it.
import { useCallback, useEffect, useRef, useState } from 'react';

import type { FieldErrors } from '@sync/index';

/**
 * `order` pairs an error key with the id of the element to focus for it (`_` is the form's
 * own error). Returns a function to call whenever new errors are set.
 */
export function useFirstErrorFocus(
  errors: FieldErrors,
  order: readonly (readonly [key: string, elementId: string])[],
): () => void {
  const [request, setRequest] = useState(0);
  const handled = useRef(0);
  useEffect(() => {
    if (request === handled.current) return;
    handled.current = request;
    const first = order.find(([key]) => errors[key]);
    if (first) document.getElementById(first[1])?.focus();
  }, [request, errors, order]);
  return useCallback(() => setRequest((n) => n + 1), []);
}

/** The errors without one field's (it is being edited). */
export function withoutError(errors: FieldErrors, key: string): FieldErrors {
  if (!(key in errors)) return errors;
  const rest = { ...errors };
  delete rest[key];
  return rest;
}
