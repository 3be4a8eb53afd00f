import { mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "../../api/src/config.js";
import { startEmbeddedPostgres, type RunningEmbeddedPostgres } from "../../api/src/db/embedded-postgres.js";
import { createLogger } from "../../api/src/logger.js";
import { startService, type RunningService } from "../../api/src/service.js";
import { createApiKey } from "../../api/src/tenants/api-keys.js";

const quiet = createLogger("silent");
let dataDir: string;
let port: number;
let postgres: RunningEmbeddedPostgres | undefined;
let service: RunningService;
let key: string;

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port: chosen } = server.address() as net.AddressInfo;
      server.close(() => resolve(chosen));
    });
  });
}

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), "outage-pg-"));
  port = await freePort();
  postgres = await startEmbeddedPostgres({ dataDir, port, logger: quiet });
  const env = { PORT: "0", LOG_LEVEL: "silent", SESSION_RUNTIME: "external", DATABASE_POOL_SIZE: "2" };
  service = await startService(parseConfig(env), env, postgres.connectionString, quiet);
  key = (await createApiKey(service.db, "outage")).key;
}, 120_000);

afterAll(async () => {
  await service?.close();
  await postgres?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

const listSessions = () => fetch(`${service.url}/v3/sessions`, { headers: { authorization: `Bearer ${key}` } });

describe("when the database goes away", () => {
  it("answers 503 unavailable, and recovers by itself when it returns, with data intact", async () => {
    const created = await fetch(`${service.url}/v3/sessions`, { method: "POST", headers: { authorization: `Bearer ${key}` } });
    const sessionId = (await created.json()).id;
    expect((await listSessions()).status).toBe(200);

    await postgres!.stop();
    postgres = undefined;
    const down = await listSessions();
    expect(down.status).toBe(503);
    expect(await down.json()).toMatchObject({ code: "unavailable", resolution: expect.any(String) });
    expect((await fetch(`${service.url}/readyz`)).status).toBe(503);
    expect((await fetch(`${service.url}/healthz`)).status).toBe(200);

    postgres = await startEmbeddedPostgres({ dataDir, port, logger: quiet });
    let recovered = 0;
    for (let attempt = 0; attempt < 50 && recovered !== 200; attempt += 1) {
      recovered = (await listSessions()).status;
      if (recovered !== 200) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(recovered).toBe(200);
    const session = await fetch(`${service.url}/v3/sessions/${sessionId}`, { headers: { authorization: `Bearer ${key}` } });
    expect(session.status).toBe(200);
  }, 120_000);
});
