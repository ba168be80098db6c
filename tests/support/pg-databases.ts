// A fresh Postgres 15 database for a suite, on its worker's cluster (global-postgres.ts):
// a copy of a template holding bootstrap + migrations (+ the seed), dropped again by
// `stop()`. Shaped like a PgCluster, so a suite that needs "a Postgres" takes either.
import { inject } from 'vitest';

import { openDevstackDatabase } from '../../devstack/database';
import { startPgCluster, type PgCluster } from '../../devstack/pg-cluster';
import { openPostgres } from '../../devstack/sql-engine';

/** The cluster global-postgres.ts started. */
export interface PostgresInfo {
  url: string;
  port: number;
}

/** Template databases: nothing, the schema, the schema with the demo seed. */
export const TEMPLATES = {
  empty: 'outpost_template_empty',
  schema: 'outpost_template_schema',
  seeded: 'outpost_template_seeded',
} as const;

let counter = 0;

/** Makes the template databases on a fresh cluster (global-postgres.ts, benchmarks). */
export async function buildTemplates(cluster: PgCluster): Promise<void> {
  const admin = openPostgres(cluster.url, 1);
  try {
    await admin.exec(`create database ${TEMPLATES.empty}`);
    for (const [name, seed] of [
      [TEMPLATES.schema, false],
      [TEMPLATES.seeded, true],
    ] as const) {
      await admin.exec(`create database ${name}`);
      // The devstack's own migration path, so a devstack opened on a copy finds its
      // migrations recorded and applies nothing more.
      const db = await openDevstackDatabase({ databaseUrl: cluster.urlFor(name), seed });
      await db.close();
    }
    for (const name of Object.values(TEMPLATES)) {
      await admin.exec(`alter database ${name} with is_template true allow_connections false`);
    }
  } finally {
    await admin.close();
  }
}

/** Outside Vitest (`npm run bench`): one cluster of this process's own, with the templates. */
let ownCluster: Promise<PostgresInfo> | undefined;

/** The cluster this process's suites use: its Vitest worker's, or its own outside Vitest. */
function thisCluster(): Promise<PostgresInfo> {
  if (!process.env.VITEST) {
    ownCluster ??= startPgCluster().then(async (cluster) => {
      await buildTemplates(cluster);
      return { url: cluster.url, port: cluster.port };
    });
    return ownCluster;
  }
  const clusters = inject('postgres');
  if (!clusters) throw new Error('Postgres 15 is not installed here (set PG_BIN_DIR)');
  // This worker's own cluster (global-postgres.ts says why it is not shared).
  const poolId = Number(process.env.VITEST_POOL_ID ?? 1);
  return Promise.resolve(clusters[(poolId - 1) % clusters.length] as PostgresInfo);
}

/** A new database copied from `template`; `url` points at it (and `urlFor` at others). */
export async function freshPostgres(
  template: keyof typeof TEMPLATES = 'seeded',
): Promise<PgCluster> {
  const info = await thisCluster();
  const base = new URL(info.url);
  const urlFor = (database: string) => {
    const url = new URL(base);
    url.pathname = `/${database}`;
    return url.toString();
  };
  counter += 1;
  const name = `suite_${process.pid}_${counter}`;
  const admin = openPostgres(info.url, 1);
  try {
    await admin.exec(`create database ${name} template ${TEMPLATES[template]}`);
  } finally {
    await admin.close();
  }
  return {
    url: urlFor(name),
    port: info.port,
    urlFor,
    async stop() {
      const dropper = openPostgres(info.url, 1);
      try {
        await dropper.exec(`drop database if exists ${name} with (force)`);
      } finally {
        await dropper.close();
      }
    },
  };
}
