// Keyboard conventions shared by the comment composer and the inline editor.
import type { KeyboardEvent } from 'react';

import { COMMENT_BODY_MAX } from '@/data/schema';

/** The counter appears once a comment is this long (80 % of the limit). */
export const COUNTER_FROM_CHARS = Math.floor(COMMENT_BODY_MAX * 0.8);

/** Ctrl+Enter, or ⌘+Enter on a Mac: send without reaching for the mouse. */
export function isSubmitShortcut(event: KeyboardEvent): boolean {
  return (
    event.key === 'Enter' && (event.ctrlKey || event.metaKey) && !event.nativeEvent.isComposing
  );
}

/** "⌘ + Enter" on Apple devices, "Ctrl + Enter" elsewhere. */
export function submitShortcutLabel(): string {
  if (typeof navigator === 'undefined') return 'Ctrl + Enter';
  // userAgentData where there is one (Chromium); platform and the user agent elsewhere.
  const hints = navigator as Navigator & { userAgentData?: { platform?: string } };
  const platform = [hints.userAgentData?.platform, navigator.platform, navigator.userAgent]
    .filter(Boolean)
    .join(' ');
  return /Mac|iPhone|iPad/i.test(platform) ? '⌘ + Enter' : 'Ctrl + Enter';
}

/** "3,612 / 4,000" near the limit (and whether it is over), else nothing. */
export function lengthCounter(text: string): { text: string; over: boolean } | null {
  if (text.length < COUNTER_FROM_CHARS) return null;
  return {
    text: `${text.length.toLocaleString('en-US')} / ${COMMENT_BODY_MAX.toLocaleString('en-US')}`,
    over: text.length > COMMENT_BODY_MAX,
  };
}
