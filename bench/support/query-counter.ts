// Counts the statements this process sends to Postgres, to report SQL round trips per request.
// Postgres's own counters (pg_stat_database) reach the views up to 10 s late from idle backends,
// so the count is taken where Prisma's adapter sends them: node-postgres's Client.query.
import pg from "pg";

let statements = 0;
let installed = false;

export function installQueryCounter(): void {
  if (installed) return;
  installed = true;
  const original = pg.Client.prototype.query;
  const counting = function (this: pg.Client, ...args: Parameters<typeof original>) {
    statements += 1;
    return original.apply(this, args);
  };
  pg.Client.prototype.query = counting as typeof original;
}

export function statementsSent(): number {
  return statements;
}
