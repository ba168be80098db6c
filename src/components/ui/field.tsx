// Labelled form controls with an inline error that screen readers hear (aria-invalid +
// aria-describedby). The control stays editable while its error shows (product.md §5). `ref`
// reaches the control (React 19 passes it as a prop).
import { useId, type ComponentPropsWithRef, type ReactNode } from 'react';

interface FieldChrome {
  label: ReactNode;
  /** The rule this value breaks, shown under the control. */
  error?: string | undefined;
  /** A hint shown under the control (e.g. "23 / 80"). */
  hint?: ReactNode;
  /** Hide the label visually (still read out). */
  hideLabel?: boolean;
}

function describedBy(id: string, error?: string, hint?: ReactNode): string | undefined {
  const ids = [error ? `${id}-error` : '', hint ? `${id}-hint` : ''].filter(Boolean);
  return ids.length ? ids.join(' ') : undefined;
}

function Chrome({
  id,
  label,
  error,
  hint,
  hideLabel,
  children,
}: FieldChrome & { id: string; children: ReactNode }) {
  return (
    <div className={`field${error ? ' field--invalid' : ''}`}>
      <label htmlFor={id} className={hideLabel ? 'visually-hidden' : 'field__label'}>
        {label}
      </label>
      {children}
      {hint ? (
        <div id={`${id}-hint`} className="field__hint">
          {hint}
        </div>
      ) : null}
      {error ? (
        <div id={`${id}-error`} className="field__error">
          {error}
        </div>
      ) : null}
    </div>
  );
}

export function TextField({
  label,
  error,
  hint,
  hideLabel,
  id,
  ...input
}: FieldChrome & ComponentPropsWithRef<'input'>) {
  const generated = useId();
  const fieldId = id ?? generated;
  return (
    <Chrome id={fieldId} label={label} error={error} hint={hint} hideLabel={hideLabel ?? false}>
      <input
        id={fieldId}
        className="field__control"
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(fieldId, error, hint)}
        {...input}
      />
    </Chrome>
  );
}

export function TextAreaField({
  label,
  error,
  hint,
  hideLabel,
  id,
  ...textarea
}: FieldChrome & ComponentPropsWithRef<'textarea'>) {
  const generated = useId();
  const fieldId = id ?? generated;
  return (
    <Chrome id={fieldId} label={label} error={error} hint={hint} hideLabel={hideLabel ?? false}>
      <textarea
        id={fieldId}
        className="field__control"
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(fieldId, error, hint)}
        {...textarea}
      />
    </Chrome>
  );
}

export function SelectField({
  label,
  error,
  hint,
  hideLabel,
  id,
  children,
  ...select
}: FieldChrome & ComponentPropsWithRef<'select'>) {
  const generated = useId();
  const fieldId = id ?? generated;
  return (
    <Chrome id={fieldId} label={label} error={error} hint={hint} hideLabel={hideLabel ?? false}>
      <select
        id={fieldId}
        className="field__control"
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(fieldId, error, hint)}
        {...select}
      >
        {children}
      </select>
    </Chrome>
  );
}

/** A form-level error (not tied to one field), announced when it appears. */
export function FormError({ message }: { message?: string | undefined }) {
  if (!message) return null;
  return (
    <p className="form-error" role="alert">
      {message}
    </p>
  );
}
