// The suggestions PostgREST's own documentation gives for its fuzzy hints (noRpcHint), and
// one from the supabase-js suite, picked the same way here.
import { describe, expect, it } from 'vitest';

import { closest } from './fuzzy';

const NAME_SCORE = 0.75;
const PARAMS_SCORE = 0.33;

describe('closest', () => {
  it('suggests a function name only when it is close', () => {
    const names = ['test', 'another'];
    expect(closest(names, 'testt', NAME_SCORE)).toBe('test');
    expect(closest(names, 'other', NAME_SCORE)).toBeUndefined();
    expect(closest(names, 'noclosealternative', NAME_SCORE)).toBeUndefined();
    expect(closest(['sayhello', 'add_them'], 'sayhell', NAME_SCORE)).toBe('sayhello');
    const polymorphic = ['json', 'jsonb', 'text', 'default', 'default_overload'].map(
      (suffix) => `polymorphic_function_with_unnamed_${suffix}`,
    );
    expect(closest(polymorphic, 'polymorphic_function_with_unnamed_integer', NAME_SCORE)).toBe(
      'polymorphic_function_with_unnamed_text',
    );
  });

  it('suggests the closest parameter list with a lower bar', () => {
    const lists = ['(name, param, val)', '(attr, id)'];
    expect(closest(lists, '(nam, pqaram, vall)', PARAMS_SCORE)).toBe('(name, param, val)');
    expect(closest(lists, '(param, val)', PARAMS_SCORE)).toBe('(name, param, val)');
    expect(closest(lists, '(attrs, id)', PARAMS_SCORE)).toBe('(attr, id)');
    expect(closest(lists, '(id)', PARAMS_SCORE)).toBe('(attr, id)');
    expect(closest(lists, '(noclosealternative)', PARAMS_SCORE)).toBeUndefined();
  });
});
