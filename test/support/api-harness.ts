import { deriveAgentToken } from "@browser-agents/protocol";
import { parseConfig, type Config } from "../../api/src/config.js";
import { createLogger } from "../../api/src/logger.js";
import { startService, type RunningService } from "../../api/src/service.js";
import { createApiKey } from "../../api/src/tenants/api-keys.js";
import { createTestDatabase } from "./database.js";

export const TEST_SIGNING_KEY = "test-signing-key-0123456789abcdefghijklmnop";

export interface ApiHarness {
  service: RunningService;
  url: string;
  databaseUrl: string;
  /** A new tenant with one key; returns the key. */
  newTenantKey(name?: string): Promise<string>;
  /** Authenticated request to /v3 with the given key. */
  call(key: string, method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiResponse>;
  /** The credential an agent of this session receives. */
  agentToken(sessionId: string): string;
  agent(sessionId: string): AgentClient;
  close(): Promise<void>;
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON fields
  body: any;
}

export interface AgentClient {
  request(method: string, path: string, body?: unknown): Promise<ApiResponse>;
}

let tenantCounter = 0;

export interface HarnessOptions {
  /** Every log line of the API (and of the agents it runs) is appended here. */
  logLines?: string[];
}

export async function startApiHarness(overrides: Record<string, string> = {}, options: HarnessOptions = {}): Promise<ApiHarness> {
  const database = await createTestDatabase();
  const env = {
    PORT: "0",
    LOG_LEVEL: "silent",
    SESSION_RUNTIME: "external",
    AGENT_TOKEN_SIGNING_KEY: TEST_SIGNING_KEY,
    DATABASE_URL: database.connectionString,
    ...overrides,
  };
  const config: Config = parseConfig(env);
  const lines = options.logLines;
  const logger = lines ? createLogger(config.LOG_LEVEL, { write: (line: string) => void lines.push(line) }) : createLogger(config.LOG_LEVEL);
  const service = await startService(config, { PATH: process.env.PATH, HOME: process.env.HOME, ...env }, database.connectionString, logger);
  const url = service.url;

  const rawRequest = async (method: string, target: string, body: unknown, headers: Record<string, string>): Promise<ApiResponse> => {
    const init: RequestInit = { method, headers: { ...headers } };
    if (body !== undefined) {
      init.body = typeof body === "string" ? body : JSON.stringify(body);
      (init.headers as Record<string, string>)["content-type"] ??= "application/json";
    }
    const response = await fetch(`${url}${target}`, init);
    const text = await response.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: response.status, headers: response.headers, text, body: parsed };
  };

  return {
    service,
    url,
    databaseUrl: database.connectionString,
    async newTenantKey(name) {
      tenantCounter += 1;
      const created = await createApiKey(service.db, name ?? `tenant-${process.pid}-${tenantCounter}-${Date.now()}`);
      return created.key;
    },
    call: (key, method, path, body, headers = {}) => rawRequest(method, path, body, { authorization: `Bearer ${key}`, ...headers }),
    agentToken: (sessionId) => deriveAgentToken(TEST_SIGNING_KEY, sessionId),
    agent(sessionId) {
      const token = deriveAgentToken(TEST_SIGNING_KEY, sessionId);
      return {
        request: (method, path, body) =>
          rawRequest(method, `/agent/v1/sessions/${sessionId}${path}`, body, { authorization: `Bearer ${token}` }),
      };
    },
    async close() {
      await service.close();
      await database.drop();
    },
  };
}
