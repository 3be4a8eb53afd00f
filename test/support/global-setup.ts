// vitest globalSetup: one Postgres server for the whole run, and a template database with the
// migrations applied, which createTestDatabase() copies for each test file.
import { randomBytes } from "node:crypto";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { connectionStringForDatabase, quoteIdentifier } from "../../api/src/db/connection-string.js";
import { applyMigrations } from "../../api/src/db/migrate.js";
import { runAdminQuery } from "./admin-query.js";
import { startTestPostgresServer } from "./postgres.js";
import "./provided-context.js";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startTestPostgresServer();
  const prefix = `test_${Date.now().toString(36)}_${randomBytes(3).toString("hex")}`;
  const template = `${prefix}_template`;
  try {
    await runAdminQuery(server.adminConnectionString, `CREATE DATABASE ${quoteIdentifier(template)}`);
    await applyMigrations(connectionStringForDatabase(server.adminConnectionString, template));
  } catch (error) {
    await server.stop();
    throw error;
  }
  project.provide("testPostgresAdminUrl", server.adminConnectionString);
  project.provide("testDatabaseTemplate", template);
  project.provide("testDatabasePrefix", prefix);

  return async () => {
    // A server of one's own outlives the run: leave nothing of this run on it.
    if (server.kind === "external") await dropDatabasesWithPrefix(server.adminConnectionString, prefix);
    await server.stop();
  };
}

async function dropDatabasesWithPrefix(adminUrl: string, prefix: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ datname: string }>(
      "SELECT datname FROM pg_database WHERE starts_with(datname, $1)",
      [`${prefix}_`],
    );
    for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS ${quoteIdentifier(datname)} WITH (FORCE)`);
  } finally {
    await client.end();
  }
}
