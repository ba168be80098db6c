import { describe, expect, it } from 'vitest';

import { refreshTokenReuseIntervalFromEnv } from './sessions';

describe('refreshTokenReuseIntervalFromEnv', () => {
  it('reads GOTRUE_SECURITY_REFRESH_TOKEN_REUSE_INTERVAL as self-hosted GoTrue does', () => {
    const read = (value: string | undefined) =>
      refreshTokenReuseIntervalFromEnv({ GOTRUE_SECURITY_REFRESH_TOKEN_REUSE_INTERVAL: value });
    expect(read('1')).toBe(1);
    expect(read('0')).toBe(0);
    expect(read('2.5')).toBe(2.5);
    // Unset, blank or nonsense: config.toml decides.
    expect(read(undefined)).toBeUndefined();
    expect(read(' ')).toBeUndefined();
    expect(read('-1')).toBeUndefined();
    expect(read('soon')).toBeUndefined();
  });
});
