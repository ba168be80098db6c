// Validation of what a person typed (or an app sent) against a valibot schema, with the
// first message per field ready to show: the library's, for any app's rules (Outpost's are
// in schema.ts).
import * as v from 'valibot';

/** Field → first message, for inline display. */
export type FieldErrors = Partial<Record<string, string>>;

/** What `validate` answers: the parsed value, or each field's first message. */
export type Validated<T> = { ok: true; value: T } | { ok: false; errors: FieldErrors };

/** Validates input against a valibot schema; each field's first message, ready to show. */
export function validate<TSchema extends v.GenericSchema>(
  schema: TSchema,
  input: unknown,
): Validated<v.InferOutput<TSchema>> {
  const result = v.safeParse(schema, input);
  if (result.success) return { ok: true, value: result.output };
  const errors: FieldErrors = {};
  for (const issue of result.issues) {
    const field = issue.path?.map((item) => String(item.key)).join('.') || '_';
    errors[field] ??= issue.message;
  }
  return { ok: false, errors };
}
