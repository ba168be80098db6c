// The official suites the runner knows: for each package of the supabase-js monorepo, its
// jest config and the test files that talk to a server. The files left out are pure unit
// tests (no server, or a mocked fetch only) or need infrastructure other than the CLI's
// (README.md lists them with the reason).

export const SUITES = {
  'postgrest-js': {
    config: undefined,
    files: [
      'test/advanced_rpc.test.ts',
      'test/basic.test.ts',
      'test/embeded_functions_join.test.ts',
      'test/filters.test.ts',
      'test/max-affected.test.ts',
      'test/relationships-aggregate-operations.test.ts',
      'test/relationships-error-handling.test.ts',
      'test/relationships-join-operations.test.ts',
      'test/relationships-spread-operations.test.ts',
      'test/relationships.test.ts',
      'test/resource-embedding.test.ts',
      'test/rpc.test.ts',
      'test/transforms.test.ts',
    ],
    /** Extensions the suite's migration creates that the devstack's engines lack. */
    standIns: { postgis: true },
  },
  'storage-js': {
    config: undefined,
    files: [
      'test/storageApi.test.ts',
      'test/storageBucketApi.test.ts',
      'test/storageFileApi.test.ts',
      'test/storageFileApiNode.test.ts',
    ],
    standIns: {},
  },
  'auth-js': {
    // The CLI configuration (the docker-tests need four differently configured GoTrues).
    config: 'jest.config.cli.js',
    files: [
      'test/GoTrueApi.test.ts',
      'test/GoTrueClient.test.ts',
      'test/GoTrueClient.browser.test.ts',
      'test/passkey.e2e.test.ts',
    ],
    standIns: {},
    /**
     * Tests of third-party identity providers (Web3 wallets, OIDC ID tokens, SAML SSO, OAuth
     * providers), which issue 41's target leaves out: counted apart in the summary.
     */
    thirdParty:
      /Web3 Authentication|ID Token Authentication|SSO Authentication|signInWithSSO|third-party oAuth providers/,
    /** The suite's own setup step (`test:generate-keys`) when its key file is missing. */
    generateKeys: 'test/generate-signing-keys.js',
  },
};
