// The platform on one machine, as test/support/local-stack.ts starts it (API with the local
// runtime, real agent-pod processes and Chromium, scripted model, test site), but outside vitest:
// local-stack's database comes from vitest's globalSetup through inject(), which only works
// inside a vitest run, so this starts its own throwaway Postgres.
import pino from "pino";
import { parseConfig } from "../../api/src/config.js";
import { createLogger } from "../../api/src/logger.js";
import { startService, type RunningService } from "../../api/src/service.js";
import { createApiKey } from "../../api/src/tenants/api-keys.js";
import { startTemporaryPostgres, type TemporaryPostgres } from "../../scripts/temporary-postgres.js";
import { startFakeLlm, type FakeLlm, type FakeLlmScript } from "../../test/fake-llm/index.js";
import { startTestSite, type TestSite } from "../../test/site/index.js";
import { TEST_LLM_KEY, scriptedModelEnv } from "../../test/support/scripted-model.js";

export interface AgentBenchStack {
  service: RunningService;
  llm: FakeLlm;
  site: TestSite;
  key: string;
  /** Every log line of the API and of the agents it runs (agents' lines nested under `agent`). */
  logLines: string[];
  /** Authenticated JSON request to the API. */
  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }>;
  close(): Promise<void>;
}


export async function startAgentBenchStack(options: {
  scripts: (site: TestSite) => FakeLlmScript[];
  env?: Record<string, string>;
}): Promise<AgentBenchStack> {
  const cleanups: Array<() => Promise<void>> = [];
  const close = async (): Promise<void> => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  };
  try {
    const postgres: TemporaryPostgres = await startTemporaryPostgres(pino({ level: "warn" }));
    cleanups.push(postgres.stop);
    const site = await startTestSite();
    cleanups.push(site.close);
    const llm = await startFakeLlm({ scripts: options.scripts(site), apiKey: TEST_LLM_KEY });
    cleanups.push(llm.close);

    const env: Record<string, string> = {
      HOST: "127.0.0.1",
      PORT: "0",
      SESSION_RUNTIME: "local",
      LOG_LEVEL: "info",
      DATABASE_URL: postgres.adminConnectionString,
      ...scriptedModelEnv(llm.baseUrl),
      ...options.env,
    };
    const config = parseConfig(env);
    const logLines: string[] = [];
    const logger = createLogger(config.LOG_LEVEL, { write: (line: string) => void logLines.push(line) });
    const hostEnv = { PATH: process.env["PATH"], HOME: process.env["HOME"], ...env };
    const service = await startService(config, hostEnv, postgres.adminConnectionString, logger);
    cleanups.push(service.close);
    const { key } = await createApiKey(service.db, "agent-bench");

    return {
      service,
      llm,
      site,
      key,
      logLines,
      async call(method, path, body) {
        const response = await fetch(`${service.url}${path}`, {
          method,
          headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        const text = await response.text();
        return { status: response.status, body: text ? (JSON.parse(text) as unknown) : undefined };
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
