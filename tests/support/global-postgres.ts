// One Postgres 15 cluster for a whole `npm test` run, started before the first test file:
// initdb costs seconds of CPU, and two dozen suites each made their own. Every suite gets
// a database of its own on it, copied from a template that already holds the schema (a
// file copy inside Postgres, in a fraction of a second), so suites stay independent and
// can run in parallel. Test files read the cluster with inject('postgres').
import type { TestProject } from 'vitest/node';

import { openDevstackDatabase } from '../../devstack/database';
import { postgresAvailable, startPgCluster } from '../../devstack/pg-cluster';
import { openPostgres } from '../../devstack/sql-engine';
import { TEMPLATES, type PostgresInfo } from './pg-databases';

declare module 'vitest' {
  export interface ProvidedContext {
    postgres: PostgresInfo | null;
  }
}

export default async function setup(project: TestProject) {
  if (!postgresAvailable()) {
    // Suites that need Postgres say so when they start (startPgCluster's own error).
    project.provide('postgres', null);
    return;
  }
  const cluster = await startPgCluster();
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
  project.provide('postgres', { url: cluster.url, port: cluster.port });
  return () => cluster.stop();
}
