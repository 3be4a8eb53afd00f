// A fresh database per test file: `const db = await createTestDatabase()` in beforeAll, `db.drop()` in afterAll.
import { randomBytes } from "node:crypto";
import { inject } from "vitest";
import { connectionStringForDatabase, quoteIdentifier } from "../../api/src/db/connection-string.js";
import { runAdminQuery } from "./admin-query.js";
import "./provided-context.js";

export interface TestDatabase {
  connectionString: string;
  drop(): Promise<void>;
}

export interface TestDatabaseOptions {
  /** An empty database instead of one with the migrations applied. */
  empty?: boolean;
}

export async function createTestDatabase(options: TestDatabaseOptions = {}): Promise<TestDatabase> {
  const adminUrl = inject("testPostgresAdminUrl");
  const name = `${inject("testDatabasePrefix")}_${randomBytes(6).toString("hex")}`;
  const template = options.empty ? "template0" : inject("testDatabaseTemplate");
  await runAdminQuery(adminUrl, `CREATE DATABASE ${quoteIdentifier(name)} TEMPLATE ${quoteIdentifier(template)}`);
  let dropped: Promise<void> | undefined;
  return {
    connectionString: connectionStringForDatabase(adminUrl, name),
    drop: () => (dropped ??= runAdminQuery(adminUrl, `DROP DATABASE IF EXISTS ${quoteIdentifier(name)} WITH (FORCE)`)),
  };
}
