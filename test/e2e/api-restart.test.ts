import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import net from "node:net";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hangingScript, startFakeLlm, type FakeLlm } from "../fake-llm/index.js";
import { agentPids, waitFor } from "../support/agent-processes.js";
import { createTestDatabase, type TestDatabase } from "../support/database.js";

const API_MAIN = fileURLToPath(new URL("../../api/dist/main.js", import.meta.url));
const KEY = `bu_restart_${randomUUID()}`;

let database: TestDatabase;
let llm: FakeLlm;
let port: number;
let api: ChildProcess | undefined;

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port: chosen } = server.address() as net.AddressInfo;
      server.close(() => resolve(chosen));
    });
  });
}

/** The API as an operator runs it: `node api/dist/main.js`, configured by its environment. */
async function startApi(): Promise<ChildProcess> {
  const child = spawn(process.execPath, [API_MAIN], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PORT: String(port),
      DATABASE_URL: database.connectionString,
      LOG_LEVEL: "warn",
      BOOTSTRAP_API_KEY: KEY,
      MODEL_CATALOG: JSON.stringify({ models: [{ name: "m", baseUrl: llm.baseUrl, apiKeyEnv: "LLM_KEY" }] }),
      LLM_KEY: "k",
      DEFAULT_MODEL: "m",
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  await waitFor(() => fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.status, () => 0), (status) => status === 200, 30_000, "the API to be ready");
  return child;
}

const call = (method: string, path: string, body?: unknown) =>
  fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: { authorization: `Bearer ${KEY}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  }).then((r) => r.json());

const exited = (child: ChildProcess) => new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once("exit", () => resolve())));

async function startHangingSession(): Promise<string> {
  const marker = randomUUID();
  const session = await call("POST", "/v3/sessions", { task: `HANG ${marker}` });
  expect(session.status).toBe("running");
  await waitFor(() => llm.requests.some((r) => r.outcome === "pending" && JSON.stringify(r.body).includes(marker)), Boolean, 30_000, "the agent's model call");
  expect(agentPids(session.id).length).toBeGreaterThan(0);
  return session.id;
}

beforeAll(async () => {
  database = await createTestDatabase();
  llm = await startFakeLlm({ scripts: [hangingScript({ match: /HANG/ })] });
  port = await freePort();
});

afterAll(async () => {
  api?.kill("SIGKILL");
  if (api) await exited(api);
  await llm?.close();
  await database?.drop();
});

describe("the API process going away", () => {
  it("a crash leaves no agent behind, and the restarted API ends the orphaned session honestly", async () => {
    api = await startApi();
    const sessionId = await startHangingSession();

    api.kill("SIGKILL");
    await exited(api);
    // Agents hold a pipe from the API; when it closes they save state and exit on their own.
    await waitFor(() => agentPids(sessionId), (pids) => pids.length === 0, 15_000, "the orphaned agent to exit");

    api = await startApi();
    const session = await call("GET", `/v3/sessions/${sessionId}`);
    expect(session).toMatchObject({ status: "error", failureKind: "internal_error", isTaskSuccessful: false });
    const messages = await call("GET", `/v3/sessions/${sessionId}/messages`);
    expect(messages.messages.at(-1).summary).toMatch(/restarted/);
  });

  it("a graceful shutdown stops every agent and records why the session ended", async () => {
    api ??= await startApi();
    const sessionId = await startHangingSession();
    api.kill("SIGTERM");
    await exited(api);
    expect(api.exitCode).toBe(0);
    expect(agentPids(sessionId)).toEqual([]);

    api = await startApi();
    const session = await call("GET", `/v3/sessions/${sessionId}`);
    expect(session).toMatchObject({ status: "error", failureKind: "internal_error" });
    const messages = await call("GET", `/v3/sessions/${sessionId}/messages`);
    expect(messages.messages.at(-1).summary).toMatch(/shut down/);
  });
});
