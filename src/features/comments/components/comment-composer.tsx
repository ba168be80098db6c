// "Add a comment": a labelled textarea with the rule it breaks shown inline, a counter near
// the 4,000-character limit, and Ctrl/⌘+Enter to post. One line until it is used (focused, or
// holding text or an error); then it opens to three, with its hint and Comment button.
import { useId, useState, type FormEvent } from 'react';

import { commentInput } from '@/data/schema';
import { validate } from '@sync/index';
import { Button } from '@/components/ui/button';
import { FormError, TextAreaField } from '@/components/ui/field';
import { useServices } from '@/lib/services';
import { attempt } from '@/data/writes';

import { CommentHint } from './comment-hint';
import { isSubmitShortcut, submitShortcutLabel } from './comment-keys';

export function CommentComposer({ taskId }: { taskId: string }) {
  const { sync } = useServices();
  const fieldId = useId();
  const [body, setBody] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [formError, setFormError] = useState<string | undefined>();
  const [saving, setSaving] = useState(false);
  const [focused, setFocused] = useState(false);
  const open = focused || body !== '' || error !== undefined || formError !== undefined;

  async function post(event?: FormEvent) {
    event?.preventDefault();
    if (saving) return;
    const checked = validate(commentInput, { body });
    if (!checked.ok) {
      setError(checked.errors.body);
      document.getElementById(fieldId)?.focus();
      return;
    }
    setSaving(true);
    const result = await attempt(() => sync.repos.comments.create(taskId, body), {
      creates: true,
    });
    setSaving(false);
    if (!result.ok) {
      setError(result.errors.body);
      setFormError(result.errors.body ? undefined : result.errors._);
      return;
    }
    setBody('');
    setError(undefined);
    setFormError(undefined);
    // Ready for the next one, wherever the post came from (button or shortcut).
    document.getElementById(fieldId)?.focus();
  }

  return (
    <form
      className={open ? 'comments__composer' : 'comments__composer comments__composer--compact'}
      onSubmit={(event) => void post(event)}
      onFocus={() => setFocused(true)}
      onBlur={(event) => {
        if (!event.currentTarget.contains(event.relatedTarget)) setFocused(false);
      }}
      noValidate
    >
      <TextAreaField
        id={fieldId}
        label="Add a comment"
        hideLabel
        placeholder="Add a comment…"
        rows={open ? 3 : 1}
        value={body}
        error={error}
        hint={
          open ? (
            <CommentHint text={body}>
              {/* A key combination means nothing on a touch screen. */}
              <span className="keyboard-only">{submitShortcutLabel()} to post</span>
            </CommentHint>
          ) : undefined
        }
        onChange={(event) => {
          setBody(event.target.value);
          if (error) setError(undefined);
        }}
        onKeyDown={(event) => {
          if (isSubmitShortcut(event)) {
            event.preventDefault();
            void post();
          }
        }}
      />
      <FormError message={formError} />
      {open ? (
        <div className="comments__composer-actions">
          <Button type="submit" variant="primary" size="sm" disabled={saving}>
            Comment
          </Button>
        </div>
      ) : null}
    </form>
  );
}
