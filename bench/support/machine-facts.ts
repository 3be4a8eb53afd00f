import { createRequire } from "node:module";
import os from "node:os";
import pg from "pg";
import { z } from "zod";

const PackageVersion = z.object({ version: z.string() });

export async function describeMachine(databaseUrl: string): Promise<string[]> {
  const cpus = os.cpus();
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  let postgres = "unknown";
  try {
    const { rows } = await client.query<{ server_version: string }>("SHOW server_version");
    postgres = rows[0]?.server_version ?? postgres;
  } finally {
    await client.end();
  }
  const autocannon = PackageVersion.parse(createRequire(import.meta.url)("autocannon/package.json")).version;
  return [
    `date         ${new Date().toISOString()}`,
    `cpu          ${cpus.length} x ${cpus[0]?.model.trim() ?? "unknown"}`,
    `memory       ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB`,
    `os           ${os.type()} ${os.release()}`,
    `node         ${process.version}`,
    `postgres     ${postgres}`,
    `autocannon   ${autocannon}`,
    `load average ${os.loadavg().map((value) => value.toFixed(2)).join(" ")} (1/5/15 min, at start; the machine may be shared)`,
  ];
}
