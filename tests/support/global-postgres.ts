// Postgres 15 for a whole `npm test` run, started before the first test file: initdb costs
// seconds of CPU, and two dozen suites each made their own. Every suite gets a database of
// its own, copied from a template that already holds the schema (a file copy inside
// Postgres, in a fraction of a second), so suites stay independent.
//
// One cluster per worker, not one for the run: sync_pull's horizon is the oldest
// transaction still running in the whole cluster, other databases included, so a suite's
// open transaction on a shared cluster held back what another suite's pull could see (a
// pull right after a push missed the row, seen in devstack-rest). A worker runs one file
// at a time, so on its own cluster a suite sees only its own transactions. The first
// cluster builds the templates and is shut down; every worker's cluster starts from a copy
// of its files.
// Test files read their cluster with inject('postgres') and VITEST_POOL_ID.
import type { TestProject } from 'vitest/node';

import { postgresAvailable, startPgCluster, type PgCluster } from '../../devstack/pg-cluster';
import { buildTemplates, type PostgresInfo } from './pg-databases';

declare module 'vitest' {
  export interface ProvidedContext {
    /** One cluster per worker, in pool id order (VITEST_POOL_ID 1 is the first). */
    postgres: PostgresInfo[] | null;
  }
}

export default async function setup(project: TestProject) {
  if (!postgresAvailable()) {
    // Suites that need Postgres say so when they start (startPgCluster's own error).
    project.provide('postgres', null);
    return;
  }
  const cluster = await startPgCluster();
  await buildTemplates(cluster);
  // The first cluster, shut down cleanly, is the template of every worker's own.
  const workers = Math.max(1, project.globalConfig.maxWorkers);
  const fromData = await cluster.halt();
  let clusters: PgCluster[];
  try {
    clusters = await Promise.all(
      Array.from({ length: workers }, () => startPgCluster({ fromData })),
    );
  } finally {
    await cluster.stop();
  }
  project.provide(
    'postgres',
    clusters.map((c) => ({ url: c.url, port: c.port })),
  );
  return () => Promise.all(clusters.map((c) => c.stop())).then(() => undefined);
}
