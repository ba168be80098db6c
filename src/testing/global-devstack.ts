// One in-memory devstack (seeded) for the app's component tests that need a server (sign-in,
// sign-up, invites), started in Node before the jsdom test files run. Tests read its address
// with inject('devstack').
import type { TestProject } from 'vitest/node';

import { TEST_RATE_LIMITS } from '../../devstack/auth/config';
import { startDevstack } from '../../devstack/server';

declare module 'vitest' {
  export interface ProvidedContext {
    devstack: { url: string; publishableKey: string; secretKey: string };
  }
}

export default async function setup(project: TestProject) {
  // Dozens of sign-ins and sign-ups from 127.0.0.1 within a minute: test rate limits.
  const stack = await startDevstack({ port: 0, auth: { rateLimits: TEST_RATE_LIMITS } });
  project.provide('devstack', {
    url: stack.url,
    publishableKey: stack.publishableKey,
    secretKey: stack.secretKey,
  });
  return async () => {
    await stack.stop();
  };
}
