import { randomBytes } from "node:crypto";
import type { FastifyInstance } from "fastify";
import type { Logger } from "pino";
import { buildApp } from "./app.js";
import type { Config } from "./config.js";
import type { PrismaClient } from "./db/client-types.js";
import { applyMigrations } from "./db/migrate.js";
import { createPrismaClient } from "./db/prisma.js";
import { loadModelCatalog } from "./models/catalog.js";
import { createRuntime } from "./runtime/create-runtime.js";
import type { RuntimeEvents, SessionRuntime } from "./runtime/session-runtime.js";
import { SessionService } from "./sessions/session-service.js";
import { WorkNotifier } from "./sessions/work-notifier.js";
import { ensureBootstrapKey } from "./tenants/api-keys.js";

export interface RunningService {
  app: FastifyInstance;
  db: PrismaClient;
  runtime: SessionRuntime;
  sessions: SessionService;
  /** The address the API listens on, e.g. http://127.0.0.1:8080 */
  url: string;
  close(): Promise<void>;
}

const TIMEOUT_SWEEP_MS = 5000;

/**
 * Starts the whole API on an already reachable database: migrations, bootstrap key, runtime,
 * HTTP server, timeout sweeper. main.ts adds the embedded database and signal handling.
 */
export async function startService(config: Config, env: Record<string, string | undefined>, databaseUrl: string, logger: Logger): Promise<RunningService> {
  const catalog = loadModelCatalog(config, env);
  await applyMigrations(databaseUrl, { migrationsDir: config.MIGRATIONS_DIR, logger });
  const db = createPrismaClient(databaseUrl, { poolMax: config.DATABASE_POOL_SIZE });
  if (config.BOOTSTRAP_API_KEY) await ensureBootstrapKey(db, config.BOOTSTRAP_TENANT, config.BOOTSTRAP_API_KEY);

  // Local agents die with the API, so a per-process key is enough off-cluster.
  const agentTokenSigningKey = config.AGENT_TOKEN_SIGNING_KEY ?? randomBytes(32).toString("base64url");
  const notifier = new WorkNotifier();
  let sessions: SessionService | undefined;
  const events: RuntimeEvents = {
    agentExited: async (sessionId, detail) => sessions?.agentExited(sessionId, detail.failureKind, detail.message),
  };

  // The port is known only after listen; agents started before then are impossible (no requests yet).
  let listeningUrl = "";
  const runtime = await createRuntime({
    config,
    logger: logger.child({ component: "runtime" }),
    events,
    get agentApiUrl() {
      return config.AGENT_API_URL ?? listeningUrl;
    },
    agentTokenSigningKey,
    hostEnv: env,
  });
  sessions = new SessionService({ db, runtime, catalog, notifier, logger, config, agentTokenSigningKey });
  const app = await buildApp({ config, db, logger, catalog, sessions, notifier });
  const address = await app.listen({ host: config.HOST, port: config.PORT });
  listeningUrl = address.replace("[::1]", "127.0.0.1");
  await sessions.recoverLiveSessions();

  const sweeper = setInterval(() => {
    sessions?.sweepTimeouts().catch((error: unknown) => logger.warn({ err: error }, "timeout sweep failed"));
  }, TIMEOUT_SWEEP_MS);
  sweeper.unref();

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      clearInterval(sweeper);
      await app.close();
      await runtime.close();
      await db.$disconnect();
    })());
  return { app, db, runtime, sessions, url: listeningUrl, close };
}
