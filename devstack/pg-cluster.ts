// A throwaway Postgres cluster in a temp dir, for tests that need a real multi-connection
// server (I3: out-of-order commits) and for running the devstack on Postgres. Postgres
// refuses to run as root, so as root the cluster belongs to an unprivileged system user.
import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Where Debian puts the Postgres 15 server binaries; PG_BIN_DIR overrides. */
export const PG_BIN_DIR = process.env.PG_BIN_DIR ?? '/usr/lib/postgresql/15/bin';
const CLUSTER_USER = 'outpost-pg';

export interface PgCluster {
  /** postgres:// URL of the `postgres` database, superuser `postgres`, no password. */
  readonly url: string;
  readonly port: number;
  /** A URL for another database on the same cluster. */
  urlFor(database: string): string;
  stop(): Promise<void>;
}

export function postgresAvailable(): boolean {
  return existsSync(join(PG_BIN_DIR, 'initdb')) && existsSync(join(PG_BIN_DIR, 'pg_ctl'));
}

function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

function ensureClusterUser(): { uid: number; gid: number } {
  try {
    execFileSync('id', ['-u', CLUSTER_USER], { stdio: 'ignore' });
  } catch {
    execFileSync('useradd', [
      '--system',
      '--no-create-home',
      '--shell',
      '/usr/sbin/nologin',
      CLUSTER_USER,
    ]);
  }
  const uid = Number(execFileSync('id', ['-u', CLUSTER_USER], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', CLUSTER_USER], { encoding: 'utf8' }).trim());
  return { uid, gid };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** A cluster this process started, which can also be shut down to serve as a template. */
export interface LocalPgCluster extends PgCluster {
  /**
   * Shuts the server down cleanly (a checkpoint, so the files are consistent) and keeps its
   * data directory, whose path it returns: `startPgCluster({ fromData })` starts copies of
   * it. `stop()` still removes it.
   */
  halt(): Promise<string>;
}

/**
 * initdb + pg_ctl start in a fresh temp dir; `stop()` removes everything. With `fromData`
 * (a halted cluster's data directory), the new cluster starts from a copy of those files,
 * its databases and templates included, instead of an empty initdb.
 */
export async function startPgCluster(from: { fromData?: string } = {}): Promise<LocalPgCluster> {
  if (!postgresAvailable()) {
    throw new Error(`Postgres binaries not found in ${PG_BIN_DIR} (set PG_BIN_DIR)`);
  }
  const dir = mkdtempSync(join(tmpdir(), 'outpost-pg-'));
  const data = join(dir, 'data');
  const asUser = isRoot() ? ensureClusterUser() : null;
  if (asUser) chownSync(dir, asUser.uid, asUser.gid);

  const pgRun = (bin: string, args: string[]) =>
    asUser
      ? run('runuser', ['-u', CLUSTER_USER, '--', join(PG_BIN_DIR, bin), ...args])
      : run(join(PG_BIN_DIR, bin), args);

  if (from.fromData) {
    // -a keeps the owner and the 0700 mode Postgres insists on.
    await run('cp', ['-a', from.fromData, data]);
  } else {
    await pgRun('initdb', [
      '-D',
      data,
      '-U',
      'postgres',
      '--auth=trust',
      '-E',
      'UTF8',
      '--locale=C',
      '--no-sync',
    ]);
  }
  const port = await freePort();
  const options = [
    `-p ${port}`,
    `-k ${dir}`,
    '-c listen_addresses=127.0.0.1',
    // A test cluster: durability off, for speed.
    '-c fsync=off',
    '-c synchronous_commit=off',
    '-c full_page_writes=off',
    // Test files run in parallel, each with its own database and connection pools on it.
    '-c max_connections=400',
  ].join(' ');
  await pgRun('pg_ctl', [
    'start',
    '-D',
    data,
    '-w',
    '-t',
    '60',
    '-l',
    join(dir, 'server.log'),
    '-o',
    options,
  ]);

  let stopped = false;
  const stopSync = () => {
    if (stopped) return;
    stopped = true;
    try {
      const args = ['stop', '-D', data, '-m', 'immediate', '-w'];
      if (asUser)
        execFileSync('runuser', ['-u', CLUSTER_USER, '--', join(PG_BIN_DIR, 'pg_ctl'), ...args], {
          stdio: 'ignore',
        });
      else execFileSync(join(PG_BIN_DIR, 'pg_ctl'), args, { stdio: 'ignore' });
    } catch {
      // already down
    }
    rmSync(dir, { recursive: true, force: true });
  };
  // A crashed test run must not leave a postmaster behind.
  process.once('exit', stopSync);

  const urlFor = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  return {
    url: urlFor('postgres'),
    port,
    urlFor,
    halt: async () => {
      await pgRun('pg_ctl', ['stop', '-D', data, '-m', 'fast', '-w']);
      return data;
    },
    stop: () => {
      process.removeListener('exit', stopSync);
      stopSync();
      return Promise.resolve();
    },
  };
}
