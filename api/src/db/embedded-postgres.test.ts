import { spawn } from "node:child_process";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import pino from "pino";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startEmbeddedPostgres } from "./embedded-postgres.js";

const logger = pino({ level: "silent" });
let root: string;
let dataDir: string;

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "embedded-postgres-test-"));
  await chmod(root, 0o755); // Postgres runs as its own OS user when the tests run as root
  dataDir = path.join(root, "data");
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function withClient<T>(connectionString: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

it("keeps its data across a stop and a start on the same data directory", async () => {
  const first = await startEmbeddedPostgres({ dataDir, logger, databaseName: "app" });
  try {
    expect(new URL(first.connectionString)).toMatchObject({ hostname: "127.0.0.1", pathname: "/app" });
    await withClient(first.connectionString, async (client) => {
      await client.query("CREATE TABLE kept (note TEXT)");
      await client.query("INSERT INTO kept VALUES ('written before the restart')");
    });
  } finally {
    await first.stop();
  }

  const second = await startEmbeddedPostgres({ dataDir, logger, databaseName: "app" });
  try {
    const rows = await withClient(second.connectionString, (client) => client.query("SELECT note FROM kept"));
    expect(rows.rows).toEqual([{ note: "written before the restart" }]);
  } finally {
    await second.stop();
  }
});

it("starts after a crash left a pid file naming a process that is not Postgres", async () => {
  const unrelated = spawn("sleep", ["30"], { stdio: "ignore" });
  try {
    await writeFile(path.join(dataDir, "postmaster.pid"), `${unrelated.pid}\n${dataDir}\n`);
    const server = await startEmbeddedPostgres({ dataDir, logger, databaseName: "app" });
    try {
      const rows = await withClient(server.connectionString, (client) => client.query("SELECT count(*)::int AS n FROM kept"));
      expect(rows.rows).toEqual([{ n: 1 }]);
    } finally {
      await server.stop();
    }
  } finally {
    unrelated.kill();
  }
});

it.runIf(process.getuid?.() === 0)("as root, says what to set when the postgres user cannot reach the data directory", async () => {
  const privateRoot = await mkdtemp(path.join(os.tmpdir(), "private-"));
  try {
    await expect(startEmbeddedPostgres({ dataDir: path.join(privateRoot, "data"), logger: pino({ level: "silent" }) })).rejects.toThrow(
      /cannot enter .*private-.*set DATA_DIR .* or set DATABASE_URL/,
    );
  } finally {
    await rm(privateRoot, { recursive: true, force: true });
  }
});
