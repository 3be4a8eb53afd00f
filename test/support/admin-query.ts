import pg from "pg";

/** Runs one statement (CREATE/DROP DATABASE and the like) on its own connection. */
export async function runAdminQuery(adminUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
