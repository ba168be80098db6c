// Quoting for the few names and strings the devstack splices into SQL text (catalog
// identifiers, trigger arguments, LISTEN channels), where a bound parameter cannot go.

/** A Postgres identifier, double-quoted with embedded quotes doubled. */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** A Postgres string literal, single-quoted with embedded quotes doubled. */
export function quoteLiteral(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}
