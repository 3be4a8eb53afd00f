// The Postgres a benchmark run uses: a throwaway database on BENCH_DATABASE_URL's server when set
// (that connection must be allowed to create databases), else a temporary embedded server.
import { randomBytes } from "node:crypto";
import pino from "pino";
import { connectionStringForDatabase, quoteIdentifier } from "../../api/src/db/connection-string.js";
import { runAdminQuery } from "../../test/support/admin-query.js";
import { startTemporaryPostgres } from "../../scripts/temporary-postgres.js";

export interface BenchDatabase {
  /** "embedded" or "BENCH_DATABASE_URL" */
  source: string;
  /** A fresh, empty database of this run. */
  databaseUrl: string;
  /** Drops the database (and stops the embedded server with its files). */
  close(): Promise<void>;
}

export async function openBenchDatabase(externalServerUrl: string | undefined): Promise<BenchDatabase> {
  if (externalServerUrl) return createThrowawayDatabase(externalServerUrl, "BENCH_DATABASE_URL", async () => {});
  const server = await startTemporaryPostgres(pino({ level: "warn" }));
  try {
    return await createThrowawayDatabase(server.adminConnectionString, "embedded", server.stop);
  } catch (error) {
    await server.stop();
    throw error;
  }
}

async function createThrowawayDatabase(adminUrl: string, source: string, stopServer: () => Promise<void>): Promise<BenchDatabase> {
  const name = `bench_api_${Date.now().toString(36)}_${randomBytes(3).toString("hex")}`;
  await runAdminQuery(adminUrl, `CREATE DATABASE ${quoteIdentifier(name)}`);
  let closing: Promise<void> | undefined;
  return {
    source,
    databaseUrl: connectionStringForDatabase(adminUrl, name),
    close: () =>
      (closing ??= (async () => {
        try {
          await runAdminQuery(adminUrl, `DROP DATABASE IF EXISTS ${quoteIdentifier(name)} WITH (FORCE)`);
        } finally {
          await stopServer();
        }
      })()),
  };
}
