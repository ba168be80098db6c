// Single-key keyboard shortcuts ("n" new task, "/" search…) that never fire while the user
// types in a field or holds a modifier. Listed for users in the "?" dialog.
import { useEffect, useRef } from 'react';

export function isTypingTarget(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  const tag = target.tagName;
  return (
    tag === 'INPUT' ||
    tag === 'TEXTAREA' ||
    tag === 'SELECT' ||
    target.isContentEditable ||
    target.closest('dialog[open]') !== null
  );
}

/**
 * Calls `onKey` with every keydown on the window while `enabled`. Always the latest
 * `onKey`, so callers pass an inline function without re-subscribing on each render.
 */
export function useWindowKeydown(onKey: (event: KeyboardEvent) => void, enabled = true) {
  const latest = useRef(onKey);
  useEffect(() => {
    latest.current = onKey;
  });
  useEffect(() => {
    if (!enabled) return;
    const listener = (event: KeyboardEvent) => latest.current(event);
    window.addEventListener('keydown', listener);
    return () => window.removeEventListener('keydown', listener);
  }, [enabled]);
}

/**
 * Calls `handler` when `key` is pressed outside text fields (no Ctrl/Alt/Meta), and takes
 * the key unless `handler` returns false: then it is left to whoever else listens for it.
 */
export function useShortcut(
  key: string,
  handler: (event: KeyboardEvent) => boolean | void,
  enabled = true,
) {
  useWindowKeydown((event) => {
    if (event.key !== key || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.defaultPrevented || isTypingTarget(event.target)) return;
    if (handler(event) !== false) event.preventDefault();
  }, enabled);
}
