/** The same Postgres connection string, pointed at another database on the same server. */
export function connectionStringForDatabase(connectionString: string, database: string): string {
  const url = new URL(connectionString);
  url.pathname = `/${encodeURIComponent(database)}`;
  return url.toString();
}

/** `"name"` with embedded quotes doubled, for identifiers that cannot be bound as parameters. */
export function quoteIdentifier(identifier: string): string {
  return `"${identifier.replaceAll('"', '""')}"`;
}
