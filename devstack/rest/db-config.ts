// PostgREST's in-database configuration: `alter role authenticator set pgrst.<name> to ...`,
// which PostgREST reads at start-up (db-config is on by default) and Supabase projects and the
// client libraries' own fixtures use to turn on aggregates, explain plans or per-request
// transaction ends. Without such a setting the answer is Supabase's: transactions commit
// (db-tx-end=commit, so `Prefer: tx=` is ignored), plans and aggregates are off. Read in the
// request that needs it: ALTER ROLE does not bump the schema generation, so it is not cached.
import type { SqlRunner } from '../sql-engine';

export type TxEnd = 'commit' | 'commit-allow-override' | 'rollback' | 'rollback-allow-override';

export interface DbConfig {
  txEnd: TxEnd;
  planEnabled: boolean;
  aggregatesEnabled: boolean;
}

export const DEFAULT_DB_CONFIG: DbConfig = {
  txEnd: 'commit',
  planEnabled: false,
  aggregatesEnabled: false,
};

/** A boolean setting as PostgREST's config reads one. */
const isOn = (value: string) => ['true', 'on', 'yes', '1'].includes(value.toLowerCase());

const TX_ENDS: readonly TxEnd[] = [
  'commit',
  'commit-allow-override',
  'rollback',
  'rollback-allow-override',
];

/**
 * The `pgrst.*` settings of role authenticator, the database's own over the role-wide ones
 * (as PostgREST's query does). Read in the request's transaction: pg_db_role_setting is
 * readable by every role.
 */
export async function readDbConfig(tx: SqlRunner): Promise<DbConfig> {
  const { rows } = await tx.query<{ setting: string }>(
    `select s.setting
       from pg_db_role_setting d, unnest(d.setconfig) as s(setting)
      where d.setrole = (select oid from pg_roles where rolname = 'authenticator')
        and d.setdatabase in (0, (select oid from pg_database where datname = current_database()))
        and s.setting like 'pgrst.%'
      order by d.setdatabase`,
  );
  const config: DbConfig = { ...DEFAULT_DB_CONFIG };
  for (const { setting } of rows) {
    const eq = setting.indexOf('=');
    const name = setting.slice('pgrst.'.length, eq);
    const value = setting.slice(eq + 1).trim();
    if (name === 'db_tx_end' && (TX_ENDS as readonly string[]).includes(value)) {
      config.txEnd = value as TxEnd;
    } else if (name === 'db_plan_enabled') {
      config.planEnabled = isOn(value);
    } else if (name === 'db_aggregates_enabled') {
      config.aggregatesEnabled = isOn(value);
    }
  }
  return config;
}

export function allowsTxOverride(config: DbConfig): boolean {
  return config.txEnd.endsWith('-allow-override');
}

/** Whether the request's transaction ends in a rollback (PostgREST's optionalRollback). */
export function shouldRollback(config: DbConfig, tx: 'commit' | 'rollback' | undefined): boolean {
  return tx === 'rollback' || (config.txEnd.startsWith('rollback') && tx !== 'commit');
}
