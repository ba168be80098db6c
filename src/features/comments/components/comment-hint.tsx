// The hint under a comment field, the same for the composer and the inline editor: the keys
// that send it (the caller's words) and, near the limit, the length counter.
import type { ReactNode } from 'react';

import { lengthCounter } from './comment-keys';

export function CommentHint({ text, children }: { text: string; children: ReactNode }) {
  const counter = lengthCounter(text);
  return (
    <span className="comments__hint">
      {children}
      {counter ? (
        <span className={counter.over ? 'comments__counter--over' : undefined}>{counter.text}</span>
      ) : null}
    </span>
  );
}
