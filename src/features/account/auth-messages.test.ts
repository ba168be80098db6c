// GoTrue's answers → what the account screens say (src/lib/auth.ts), for the codes the
// devstack cannot be made to produce on demand (rate limits, server faults, hosted rules).
import {
  AuthApiError,
  AuthRetryableFetchError,
  AuthWeakPasswordError,
} from '@supabase/supabase-js';
import { describe, expect, it } from 'vitest';

import { describeAuthError, safeNext, validateSignIn, validateSignUp } from '@/lib/auth';

describe('auth error messages', () => {
  it('maps GoTrue codes to sentences and fields', () => {
    expect(describeAuthError(new AuthApiError('x', 400, 'invalid_credentials'))).toEqual({
      ok: false,
      message: 'Email or password is wrong.',
    });
    for (const code of ['user_already_exists', 'email_exists']) {
      expect(describeAuthError(new AuthApiError('x', 422, code))).toEqual({
        ok: false,
        field: 'email',
        message: "There's already an account with this email. Sign in instead?",
      });
    }
    expect(describeAuthError(new AuthApiError('x', 429, 'over_request_rate_limit'))).toEqual({
      ok: false,
      message: 'Too many attempts. Wait a minute and try again.',
    });
    expect(describeAuthError(new AuthApiError('x', 429, undefined))).toMatchObject({
      message: 'Too many attempts. Wait a minute and try again.',
    });
    expect(describeAuthError(new AuthRetryableFetchError('fetch failed', 0))).toEqual({
      ok: false,
      message: "Can't reach the server. Check your connection and try again.",
    });
    expect(
      describeAuthError(
        new AuthApiError(
          'Unable to validate email address: invalid format',
          400,
          'validation_failed',
        ),
      ),
    ).toEqual({
      ok: false,
      field: 'email',
      message: 'Enter an email address like name@example.com.',
    });
  });

  it('states the password rule a weak password broke', () => {
    expect(
      describeAuthError(
        new AuthWeakPasswordError('Password should be at least 8 characters.', 422, ['length']),
      ),
    ).toEqual({
      ok: false,
      field: 'password',
      message: 'This password is too short for this server. Choose a longer one.',
    });
    expect(describeAuthError(new AuthWeakPasswordError('pwned', 422, ['pwned']))).toMatchObject({
      field: 'password',
      message: expect.stringMatching(/data breach/) as string,
    });
  });

  it('validates the forms before anything is sent', () => {
    expect(validateSignIn({ email: '  ', password: '' })).toEqual({
      ok: false,
      errors: { email: 'Enter your email address.', password: 'Enter your password.' },
    });
    expect(validateSignUp({ name: 'x'.repeat(61), email: 'a@b', password: '12345' })).toEqual({
      ok: false,
      errors: {
        name: 'Name can be at most 60 characters.',
        email: 'Enter an email address like name@example.com.',
        password: 'Password must be at least 6 characters.',
      },
    });
    expect(
      validateSignUp({ name: ' Dana ', email: ' dana@example.com ', password: 'secret' }),
    ).toEqual({ ok: true, value: { name: 'Dana', email: 'dana@example.com', password: 'secret' } });
  });

  it('accepts the addresses people have and refuses what is not one', () => {
    for (const address of [
      "o'brien@example.com",
      'a.b+tag@mail.example.co.uk',
      'x_y@ex-ample.org',
    ]) {
      expect(validateSignIn({ email: address, password: 'x' }), address).toMatchObject({
        ok: true,
      });
    }
    for (const address of [
      'dana@',
      '@example.com',
      'dana@example',
      'da na@example.com',
      'a..b@example.com',
    ]) {
      expect(validateSignIn({ email: address, password: 'x' }), address).toEqual({
        ok: false,
        errors: { email: 'Enter an email address like name@example.com.' },
      });
    }
  });

  it('only follows ?next= within the site', () => {
    expect(safeNext('/lists/1?x=2')).toBe('/lists/1?x=2');
    expect(safeNext('//evil.example.com')).toBe('/lists');
    expect(safeNext('/\\evil.example.com')).toBe('/lists');
    expect(safeNext('https://evil.example.com')).toBe('/lists');
    expect(safeNext(null)).toBe('/lists');
  });
});
