// The SQL both NOTIFY triggers' functions are made with (change capture, broadcast from the
// database): the devstack's own schema, created by whichever starts first and marked as not
// the migrations', and a plpgsql trigger function in it on a fixed search_path.

/** `create or replace` of devstack_realtime.<name>() with `body` (declare … end). */
export function triggerFunctionSql(name: string, body: string): string {
  return `
create schema if not exists devstack_realtime;
comment on schema devstack_realtime is
  'Added by the Outpost devstack (not the migrations): change capture for realtime.';
create or replace function devstack_realtime.${name}() returns trigger
language plpgsql
set search_path = pg_catalog, pg_temp
as $fn$
${body}
$fn$;`;
}
