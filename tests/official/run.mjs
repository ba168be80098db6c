#!/usr/bin/env node
// Runs the official Supabase client suites (postgrest-js, storage-js, auth-js from a
// supabase-js checkout) unmodified against the devstack, each on its own supabase/ directory
// and a fresh database, and writes per-test pass/fail and a count of the server-touching tests.
// A measuring tool, not part of `npm test`: it needs the external checkout. See README.md.
//
//   node tests/official/run.mjs [--checkout DIR] [--results DIR] [suite…]
//
// Nothing here reaches the internet: the devstack listens on 127.0.0.1 and the suites talk to
// it through a local proxy on port 54321 (proxy.mjs), the CLI's URL they are written for.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { prepareProjectDir } from './project-copy.mjs';
import { startProxy } from './proxy.mjs';
import { SUITES } from './suites.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO_ROOT = resolve(HERE, '..', '..');
const API_PORT = 54321;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    checkout: { type: 'string', default: process.env.SUPABASE_JS_DIR ?? '' },
    results: { type: 'string', default: process.env.OFFICIAL_RESULTS_DIR ?? '' },
    // Another copy of this repository to run the devstack from (a tree others are editing
    // may not build at every moment); default this one.
    devstack: { type: 'string', default: process.env.OFFICIAL_DEVSTACK_ROOT ?? '' },
  },
});
if (!values.checkout) {
  console.error('usage: run.mjs --checkout <supabase-js checkout> [--results DIR] [suite…]');
  process.exit(2);
}
const checkout = resolve(values.checkout);
const devstackRoot = resolve(values.devstack || REPO_ROOT);
const resultsDir = resolve(values.results || join(checkout, '..', 'results'));
const jestBin = join(checkout, 'node_modules', '.bin', 'jest');
if (!existsSync(jestBin)) {
  console.error(`${jestBin} is missing: install the suites' test dependencies (README.md)`);
  process.exit(2);
}
const chosen = positionals.length > 0 ? positionals : Object.keys(SUITES);
for (const name of chosen) {
  if (!SUITES[name]) {
    console.error(`unknown suite ${name}; one of ${Object.keys(SUITES).join(', ')}`);
    process.exit(2);
  }
}
mkdirSync(resultsDir, { recursive: true });

/** Starts `npm run backend` on a free port over the suite's project dir; resolves when ready. */
function startDevstack(projectDir, log) {
  const child = spawn(join(devstackRoot, 'node_modules', '.bin', 'tsx'), ['devstack/cli.ts'], {
    cwd: devstackRoot,
    env: {
      ...process.env,
      DEVSTACK_PORT: '0',
      DEVSTACK_MEMORY: 'true',
      DEVSTACK_PROJECT_DIR: projectDir,
      // The CLI's GoTrue has no rate-limit header configured, and GoTrue applies its per-IP
      // limits only when it knows the caller's address from one (middleware.go): under
      // `supabase start` they never bite. The devstack applies them as hosted does, so the
      // runner raises them, as the browser tests do.
      DEVSTACK_TEST_RATE_LIMITS: 'true',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolvePromise, reject) => {
    let out = '';
    const onData = (chunk) => {
      out += chunk;
      log.write(chunk);
      const url = /API URL:\s+(\S+)/.exec(out)?.[1];
      const key = /publishable key:\s+(\S+)/.exec(out)?.[1];
      if (url && key) {
        child.stdout.off('data', onData);
        child.stdout.on('data', (more) => log.write(more));
        resolvePromise({ child, url, publishableKey: key });
      }
    };
    child.stdout.setEncoding('utf8').on('data', onData);
    child.stderr.setEncoding('utf8').on('data', (chunk) => log.write(chunk));
    child.once('exit', (code) => reject(new Error(`devstack exited (${code}) before ready`)));
  });
}

function stopChild(child) {
  return new Promise((resolvePromise) => {
    if (child.exitCode !== null) return resolvePromise();
    child.once('exit', () => resolvePromise());
    child.kill('SIGTERM');
  });
}

function run(command, args, options) {
  return new Promise((resolvePromise) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (c) => options.log.write(c));
    child.stderr.on('data', (c) => options.log.write(c));
    child.once('exit', (code) => resolvePromise(code));
  });
}

/** A log file that also keeps what was written. */
function logFile(path) {
  writeFileSync(path, '');
  return { write: (chunk) => writeFileSync(path, chunk, { flag: 'a' }) };
}

async function runSuite(name) {
  const suite = SUITES[name];
  const packageDir = join(checkout, 'packages', 'core', name);
  const work = mkdtempSync(join(tmpdir(), `official-${name}-`));
  const log = logFile(join(resultsDir, `${name}.log`));
  const projectDir = await prepareProjectDir(packageDir, suite, work, log);
  const stack = await startDevstack(projectDir, log);
  const proxy = await startProxy({
    port: API_PORT,
    target: stack.url,
    apikey: stack.publishableKey,
  });
  const touchLog = join(work, 'touched.tsv');
  const jsonOut = join(work, 'jest.json');
  writeFileSync(touchLog, '');
  const started = Date.now();
  try {
    await run(
      jestBin,
      [
        '--ci',
        '--runInBand',
        '--coverage=false',
        ...(suite.config ? ['--config', suite.config] : []),
        '--setupFilesAfterEnv',
        join(HERE, 'touch-tracker.cjs'),
        '--json',
        '--outputFile',
        jsonOut,
        ...suite.files,
      ],
      {
        cwd: packageDir,
        env: { ...process.env, OFFICIAL_TOUCH_LOG: touchLog, CI: 'true' },
        log,
      },
    );
  } finally {
    await proxy.close();
    await stopChild(stack.child);
  }
  const report = writeResults(name, suite, jsonOut, touchLog, packageDir, Date.now() - started);
  rmSync(work, { recursive: true, force: true });
  return report;
}

function stripAnsi(text) {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;]*m/g, '');
}

function writeResults(name, suite, jsonOut, touchLog, packageDir, ms) {
  const touched = new Set(
    readFileSync(touchLog, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const [path, test] = line.split('\t');
        return `${path.slice(packageDir.length + 1)}\t${test}`;
      }),
  );
  const json = existsSync(jsonOut)
    ? JSON.parse(readFileSync(jsonOut, 'utf8'))
    : { testResults: [] };
  const lines = [];
  let passed = 0;
  let total = 0;
  let all = 0;
  const thirdParty = { passed: 0, total: 0 };
  const fileErrors = [];
  const failures = [];
  for (const file of json.testResults) {
    const path = file.name.slice(packageDir.length + 1);
    if (file.assertionResults.length === 0 && file.message) {
      fileErrors.push(`${path}: ${file.message.split('\n').find((l) => l.trim()) ?? ''}`);
    }
    for (const test of file.assertionResults) {
      if (test.status !== 'passed' && test.status !== 'failed') continue;
      all += 1;
      // A test that touched the API itself, or one that failed without sending anything in a
      // file whose beforeAll did (the hook failed, so the test never ran): counting those can
      // only lower the rate, never raise it.
      const server =
        touched.has(`${path}\t${test.fullName}`) ||
        (test.status === 'failed' && touched.has(`${path}\t`));
      if (server) {
        total += 1;
        if (test.status === 'passed') passed += 1;
        if (suite.thirdParty?.test(test.fullName)) {
          thirdParty.total += 1;
          if (test.status === 'passed') thirdParty.passed += 1;
        }
      }
      const why =
        test.status === 'failed'
          ? `\t${(test.failureMessages[0] ?? '').split('\n').find((l) => l.trim()) ?? ''}`.slice(
              0,
              300,
            )
          : '';
      if (test.status === 'failed') {
        failures.push(
          `## ${path} › ${test.fullName}\n${stripAnsi(test.failureMessages.join('\n'))
            .split('\n')
            .filter((l) => !/^\s+at /.test(l))
            .slice(0, 60)
            .join('\n')}\n`,
        );
      }
      lines.push(
        `${test.status === 'passed' ? 'PASS' : 'FAIL'}\t${server ? 'server' : 'local'}\t${path} › ${test.fullName}${why}`,
      );
    }
  }
  const percent = total === 0 ? 0 : Math.round((1000 * passed) / total) / 10;
  const own = { passed: passed - thirdParty.passed, total: total - thirdParty.total };
  const ownPercent = own.total === 0 ? 0 : Math.round((1000 * own.passed) / own.total) / 10;
  const summary =
    `${name}: ${passed} passed of ${total} server-touching tests (${percent}%)` +
    (suite.thirdParty
      ? `; excluding third-party identity providers: ${own.passed} of ${own.total} (${ownPercent}%)`
      : '');
  const header = [
    summary,
    `(${all} tests ran in ${suite.files.length} files in ${Math.round(ms / 1000)} s; "local" tests sent no request to the API and are not counted)`,
    ...fileErrors.map((e) => `FILE ERROR\t${e}`),
    '',
  ];
  writeFileSync(join(resultsDir, `${name}.txt`), `${[...header, ...lines].join('\n')}\n`);
  // What each failing test expected and got, for whoever fixes it.
  writeFileSync(join(resultsDir, `${name}.failures.md`), `${failures.join('\n')}\n`);
  return summary;
}

const summaries = [];
for (const name of chosen) {
  const summary = await runSuite(name);
  console.log(summary);
  summaries.push(summary);
}
writeFileSync(join(resultsDir, 'summary.txt'), `${summaries.join('\n')}\n`, {
  flag: chosen.length === Object.keys(SUITES).length ? 'w' : 'a',
});
