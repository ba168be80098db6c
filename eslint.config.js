// @ts-check
// Lint rules, including the one-way import boundaries from conventions.md ("The shape of the code").
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import { importX } from 'eslint-plugin-import-x';
import reactHooks from 'eslint-plugin-react-hooks';
import { defineConfig, globalIgnores } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** Features planned in conventions.md, plus any folder that exists, so new features are fenced in too. */
const FEATURES = [
  ...new Set([
    'lists',
    'tasks',
    'comments',
    'attachments',
    'members',
    'account',
    'settings',
    ...featureFolders(),
  ]),
];

function featureFolders() {
  try {
    return readdirSync(join(import.meta.dirname, 'src/features'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
  } catch {
    return []; // src/features does not exist yet
  }
}

/** Shared code below the features; it must not reach up into them or into the app shell. */
const SHARED = ['./src/components', './src/hooks', './src/lib', './src/types', './src/utils'];

// Zones name folders that may not exist yet; the rule matches paths, so they start to bite
// as soon as the folder appears.
const importBoundaries = [
  // sync/ is a library the app uses, never the other way round.
  { target: './sync', from: './src', message: 'sync/ must not import from src/.' },
  // ... and a closed one: the app sees its public entry (its tests also the testing kit),
  // never its modules or its Dexie tables (issue 15).
  {
    target: './src',
    from: './sync',
    except: ['./index.ts', './testing.ts'],
    message: 'src/ uses the sync library only through @sync/index (tests: also @sync/testing).',
  },
  {
    target: './devstack',
    from: ['./src', './sync'],
    message: 'devstack/ must not import from src/ or sync/.',
  },
  // Features do not import each other.
  ...FEATURES.map((feature) => ({
    target: `./src/features/${feature}`,
    from: './src/features',
    except: [`./${feature}`],
    message:
      'Features must not import each other; move shared code down to src/components or src/lib.',
  })),
  // Imports flow one way: shared → features → app.
  { target: './src/features', from: './src/app', message: 'Features must not import src/app.' },
  {
    target: SHARED,
    from: ['./src/features', './src/app'],
    message: 'Shared code must not import src/features or src/app.',
  },
];

export default defineConfig([
  globalIgnores([
    'dist',
    'dev-dist',
    'node_modules',
    '.devstack',
    'coverage',
    '.tmp',
    'playwright-report',
  ]),
  // Edge functions are Deno code with their own import maps: `deno lint` and `deno check`
  // cover them (scripts/deno-functions.mjs, run by `npm run lint` and `npm run typecheck`).
  globalIgnores(['supabase/functions']),

  js.configs.recommended,

  {
    files: ['**/*.{js,mjs,cjs}'],
    languageOptions: { globals: globals.node },
  },

  {
    files: ['**/*.{ts,tsx}'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },

  {
    files: ['**/*.{js,mjs,cjs,ts,tsx}'],
    plugins: { 'import-x': importX },
    settings: {
      // Without these, import-x only parses .js dependencies and no-cycle silently misses
      // every cycle through a .ts file.
      'import-x/extensions': ['.ts', '.tsx', '.js', '.mjs', '.cjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
      'import-x/resolver-next': [createTypeScriptImportResolver({ alwaysTryTypes: true })],
    },
    rules: {
      'import-x/no-cycle': 'error',
      'import-x/no-duplicates': 'error',
      'import-x/no-restricted-paths': ['error', { zones: importBoundaries }],
    },
  },

  {
    files: ['src/**/*.{ts,tsx}'],
    extends: [reactHooks.configs.flat.recommended],
    languageOptions: { globals: globals.browser },
  },

  // The outbox keeps its counts with every write to it (sync/outbox.ts): nothing else in
  // sync/, examples/ or tests/ writes `_outbox`, or the counts would drift from the queue.
  {
    files: ['sync/**/*.ts', 'examples/**/*.ts', 'tests/**/*.ts'],
    ignores: ['sync/outbox.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            "CallExpression[callee.property.name=/^(add|bulkAdd|put|bulkPut|update|bulkUpdate|delete|bulkDelete|clear|modify)$/]:has(MemberExpression[property.name='_outbox'])",
          message:
            'Write the outbox through sync/outbox.ts (enqueue, freeze, dequeue…): it keeps the counts.',
        },
      ],
    },
  },

  // The app's own code reads the device through `sync.queries`: no Dexie, and the testing
  // kit only in tests.
  {
    files: ['src/**/*.{ts,tsx}'],
    ignores: ['src/**/*.test.{ts,tsx}', 'src/testing/**', 'src/**/testing/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'dexie', message: 'Read the device through sync.queries (@sync/index).' },
            {
              name: '@sync/testing',
              message: 'The testing kit is for tests; the app reads through sync.queries.',
            },
          ],
          patterns: [
            {
              regex: '^@sync/(?!index$)',
              message: 'src/ uses the sync library only through @sync/index.',
            },
          ],
        },
      ],
    },
  },

  // Tests see the device through the public API and the testing kit's test API (putStoredRows,
  // storedRows, queuedChanges, keptFiles, rejectionsLogged…), never its Dexie tables: the raw
  // database (deviceDb) is for the library's own suites in tests/.
  {
    files: ['src/**/*.test.{ts,tsx}', 'src/testing/**', 'src/**/testing/**'],
    rules: { 'no-restricted-imports': ['error', testImports({ dexie: true })] },
  },
  // Tests the liveQuery sharing itself, on its own tiny Dexie database (not the device's).
  {
    files: ['src/hooks/use-shared-live-query.test.tsx'],
    rules: { 'no-restricted-imports': ['error', testImports({ dexie: false })] },
  },
]);

/**
 * no-restricted-imports options for src/ tests: no `deviceDb`, no sync/ module but the public
 * entry and the testing kit, and (unless `dexie` is false) no Dexie.
 * @param {{ dexie: boolean }} options
 */
function testImports({ dexie }) {
  return {
    paths: [
      {
        name: '@sync/testing',
        importNames: ['deviceDb'],
        message:
          "Tests in src/ use @sync/testing's test API (putStoredRows, storedRow(s), queuedChanges, keptFiles, logRejections…) and sync.queries, not the device's Dexie tables.",
      },
      ...(dexie
        ? [
            {
              name: 'dexie',
              message: 'Tests in src/ see the device through @sync/testing and sync.queries.',
            },
          ]
        : []),
    ],
    patterns: [
      {
        regex: '^@sync/(?!index$|testing$)',
        message: 'src/ uses the sync library only through @sync/index (tests: also @sync/testing).',
      },
    ],
  };
}
