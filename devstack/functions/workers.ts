// One Deno process per edge function, started on first call and kept warm, each on its own
// loopback port. A crashed worker is started again on the next call; stopAll() leaves no
// process behind, and a worker whose devstack died exits by itself (its stdin closes).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import { REPO_ROOT } from '../schema-files';

/** How long a worker may take to listen before the call fails with BOOT_ERROR. */
const BOOT_TIMEOUT_MS = 20_000;
/** How long a stopping worker gets after SIGTERM before SIGKILL. */
const STOP_GRACE_MS = 2_000;
const LISTENING = /__devstack_function_listening__ (\d+)/;

/** Deno's compile cache, kept between runs (gitignored with node_modules). */
const DENO_DIR = join(REPO_ROOT, 'node_modules', '.cache', 'outpost-devstack', 'deno');
const BOOTSTRAP = join(import.meta.dirname, 'deno-bootstrap.js');

/** The Deno binary of the npm `deno` package (its postinstall copies it next to bin.cjs). */
export function denoBinary(): string {
  const require = createRequire(import.meta.url);
  const packageDir = join(require.resolve('deno/package.json'), '..');
  const copied = join(packageDir, process.platform === 'win32' ? 'deno.exe' : 'deno');
  if (existsSync(copied)) return copied;
  // Without install scripts the binary is still in the platform package; the deno package's
  // own resolver finds it.
  const installApi = require(join(packageDir, 'install_api.cjs')) as { runInstall(): string };
  return installApi.runInstall();
}

export class BootError extends Error {}

interface Worker {
  process: ChildProcess;
  port: number;
}

export class FunctionWorkers {
  private readonly running = new Map<string, Promise<Worker>>();
  private readonly all = new Set<ChildProcess>();
  private stopped = false;

  constructor(
    private readonly functionsDir: string,
    private readonly env: () => Record<string, string>,
  ) {}

  /** The port of the named function's worker, starting it if needed. */
  async port(name: string): Promise<number> {
    let worker = this.running.get(name);
    if (!worker) {
      worker = this.start(name);
      this.running.set(name, worker);
      // A failed start is forgotten, so the next call tries again.
      worker.catch(() => this.running.delete(name));
    }
    return (await worker).port;
  }

  /** Forgets a worker that failed mid-request; the next call starts a fresh one. */
  discard(name: string): void {
    const worker = this.running.get(name);
    this.running.delete(name);
    void worker?.then((w) => w.process.kill('SIGKILL')).catch(() => undefined);
  }

  private start(name: string): Promise<Worker> {
    if (this.stopped) return Promise.reject(new BootError('the devstack is stopping'));
    mkdirSync(DENO_DIR, { recursive: true });
    const dir = join(this.functionsDir, name);
    const args = [
      'run',
      // Offline: npm: imports resolve from the repository's node_modules, nothing is fetched.
      '--node-modules-dir=manual',
      '--cached-only',
      '--no-prompt',
      '--allow-net',
      '--allow-env',
      '--allow-read',
      '--allow-sys',
      ...(existsSync(join(dir, 'deno.json')) ? ['--config', join(dir, 'deno.json')] : []),
      BOOTSTRAP,
      pathToFileURL(join(dir, 'index.ts')).href,
    ];
    const child = spawn(denoBinary(), args, {
      cwd: REPO_ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        DENO_DIR,
        NO_COLOR: '1',
        DENO_NO_UPDATE_CHECK: '1',
        ...this.env(),
      },
      // stdin is a pipe only this process holds: when the devstack dies, however it dies
      // (SIGKILL included), the worker reads EOF and exits (deno-bootstrap.js).
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child.stdin.on('error', () => undefined); // a worker that already exited
    this.all.add(child);
    child.once('exit', () => {
      this.all.delete(child);
      // A worker that dies after start is forgotten; the next call restarts it.
      const current = this.running.get(name);
      current
        ?.then((w) => {
          if (w.process === child) this.running.delete(name);
        })
        .catch(() => undefined);
    });

    return new Promise<Worker>((resolve, reject) => {
      let output = '';
      const fail = (why: string) => {
        clearTimeout(timer);
        child.kill('SIGKILL');
        reject(new BootError(`${name}: ${why}${output ? `\n${output.slice(-2000)}` : ''}`));
      };
      const timer = setTimeout(
        () => fail(`did not start within ${BOOT_TIMEOUT_MS} ms`),
        BOOT_TIMEOUT_MS,
      );
      child.stdout.on('data', (chunk: Buffer) => {
        const text = chunk.toString();
        const match = LISTENING.exec(text);
        if (match) {
          clearTimeout(timer);
          resolve({ process: child, port: Number(match[1]) });
        }
        const rest = text.replace(LISTENING, '').trim();
        if (rest) process.stdout.write(`[functions:${name}] ${rest}\n`);
      });
      child.stderr.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        process.stderr.write(`[functions:${name}] ${chunk.toString()}`);
      });
      child.once('error', (error) => fail(error.message));
      child.once('exit', (code, signal) => fail(`exited (${signal ?? code}) before listening`));
    });
  }

  /** Stops every worker and waits for each process to exit. */
  async stopAll(): Promise<void> {
    this.stopped = true;
    this.running.clear();
    await Promise.all(
      [...this.all].map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            const force = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
            child.once('exit', () => {
              clearTimeout(force);
              resolve();
            });
            child.kill('SIGTERM');
          }),
      ),
    );
  }
}
