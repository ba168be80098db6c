// PostgREST's in-database configuration: settings a project gives the `authenticator` role
// (`alter role authenticator set pgrst.db_aggregates_enabled = 'true'`), which PostgREST reads
// when it loads its config, as the Supabase CLI's does. postgrest-js's own suite turns on
// aggregates, EXPLAIN (`db_plan_enabled`) and `Prefer: tx=rollback` (`db_tx_end`) this way.
// Read once when the devstack starts, after the migrations.
import type { SqlRunner } from './sql-engine';

/** The `pgrst.*` settings of the authenticator role, PostgREST's names without the prefix. */
export interface PgrstSettings {
  /** `db_aggregates_enabled`: aggregate functions in `select` (PostgREST's default: off). */
  readonly aggregatesEnabled: boolean;
  /** `db_plan_enabled`: `Accept: application/vnd.pgrst.plan` (default: off). */
  readonly planEnabled: boolean;
  /**
   * `db_tx_end`: commit, commit-allow-override, rollback, rollback-allow-override (default
   * commit). With an -allow-override value `Prefer: tx=commit|rollback` chooses per request.
   */
  readonly txEnd: 'commit' | 'commit-allow-override' | 'rollback' | 'rollback-allow-override';
  /** Every `pgrst.*` setting as written, by name without the prefix. */
  readonly raw: Readonly<Record<string, string>>;
}

export const DEFAULT_PGRST_SETTINGS: PgrstSettings = {
  aggregatesEnabled: false,
  planEnabled: false,
  txEnd: 'commit',
  raw: {},
};

const TX_END = ['commit', 'commit-allow-override', 'rollback', 'rollback-allow-override'] as const;

function isTxEnd(value: string): value is PgrstSettings['txEnd'] {
  return (TX_END as readonly string[]).includes(value);
}

/** Reads the authenticator role's `pgrst.*` settings (this database's, then every one's). */
export async function readPgrstSettings(db: SqlRunner): Promise<PgrstSettings> {
  const { rows } = await db.query<{ setting: string }>(
    `select unnest(s.setconfig) as setting
       from pg_catalog.pg_db_role_setting s
       join pg_catalog.pg_roles r on r.oid = s.setrole
      where r.rolname = 'authenticator'
        and s.setdatabase in (0, (select oid from pg_catalog.pg_database
                                   where datname = current_database()))
      order by s.setdatabase`,
  );
  const raw: Record<string, string> = {};
  for (const { setting } of rows) {
    const at = setting.indexOf('=');
    const name = setting.slice(0, at);
    // Database-specific settings come last and win, as in Postgres.
    if (at > 0 && name.startsWith('pgrst.'))
      raw[name.slice('pgrst.'.length)] = setting.slice(at + 1);
  }
  const flag = (name: string) => raw[name]?.toLowerCase() === 'true';
  const txEnd = raw.db_tx_end ?? 'commit';
  return {
    aggregatesEnabled: flag('db_aggregates_enabled'),
    planEnabled: flag('db_plan_enabled'),
    txEnd: isTxEnd(txEnd) ? txEnd : 'commit',
    raw,
  };
}
