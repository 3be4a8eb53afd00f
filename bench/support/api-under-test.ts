// The real API service (startService) on the bench database, with one tenant, its key and sessions.
import { randomBytes } from "node:crypto";
import { parseConfig } from "../../api/src/config.js";
import { newId } from "../../api/src/ids.js";
import { createLogger } from "../../api/src/logger.js";
import { startService, type RunningService } from "../../api/src/service.js";
import { createApiKey } from "../../api/src/tenants/api-keys.js";

export interface ApiUnderTest {
  service: RunningService;
  poolSize: number;
  tenantId: string;
  /** A valid API key of the tenant. */
  apiKey: string;
  /** A finished session of the tenant, with no messages, as a client would poll it. */
  createSession(label: string): Promise<string>;
  close(): Promise<void>;
}

export async function startApiUnderTest(databaseUrl: string): Promise<ApiUnderTest> {
  const env = {
    HOST: "127.0.0.1",
    PORT: "0",
    LOG_LEVEL: "silent",
    // No agents run: the benchmark only reads.
    SESSION_RUNTIME: "external",
    AGENT_TOKEN_SIGNING_KEY: randomBytes(32).toString("base64url"),
    DATABASE_URL: databaseUrl,
  };
  const config = parseConfig(env);
  const service = await startService(config, { PATH: process.env.PATH, HOME: process.env.HOME, ...env }, databaseUrl, createLogger(config.LOG_LEVEL));
  try {
    const { key, tenantId } = await createApiKey(service.db, "bench");
    return {
      service,
      poolSize: config.DATABASE_POOL_SIZE,
      tenantId,
      apiKey: key,
      async createSession(label) {
        const id = newId();
        const now = new Date();
        // "stopped": neither the timeout sweeper nor recovery touches it.
        await service.db.session.create({
          data: {
            id,
            tenantId,
            status: "stopped",
            model: config.DEFAULT_MODEL,
            title: `Benchmark session: ${label}`,
            task: `Benchmark session: ${label}. Find the cheapest flight from Berlin to Lisbon next Friday.`,
            taskNumber: 1,
            output: { answer: "EUR 89 on a morning flight", flights: 12 },
            stepCount: 17,
            lastStepSummary: "Compared the prices of the results and wrote the answer.",
            isTaskSuccessful: true,
            totalInputTokens: 183_211,
            totalOutputTokens: 4_312,
            llmCostUsd: "0.0812300000",
            browserCostUsd: "0.0040000000",
            agentTokenHash: randomBytes(32).toString("hex"),
            taskStartedAt: now,
            endedAt: now,
          },
        });
        return id;
      },
      close: () => service.close(),
    };
  } catch (error) {
    await service.close();
    throw error;
  }
}
