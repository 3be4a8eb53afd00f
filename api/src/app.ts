import { AGENT_API_PREFIX } from "@browser-agents/protocol";
import swagger from "@fastify/swagger";
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from "fastify";
import { jsonSchemaTransform, jsonSchemaTransformObject, serializerCompiler, validatorCompiler, type ZodTypeProvider } from "fastify-type-provider-zod";
import type { Logger } from "pino";
import type { ZodType } from "zod";
import type { Config } from "./config.js";
import type { PrismaClient } from "./db/client-types.js";
import { installErrorHandling } from "./http/error-handler.js";
import { installJsonParser } from "./http/json-body.js";
import { useContractSchemaNames } from "./http/openapi-names.js";
import type { ModelCatalog } from "./models/catalog.js";
import tenantAuth from "./plugins/tenant-auth.js";
import { agentRoutes } from "./routes/agent.js";
import { healthRoutes } from "./routes/health.js";
import { profileRoutes } from "./routes/profiles.js";
import { sessionRoutes } from "./routes/sessions.js";
import type { SessionService } from "./sessions/session-service.js";
import type { WorkNotifier } from "./sessions/work-notifier.js";

export interface AppDeps {
  config: Config;
  db: PrismaClient;
  logger: Logger;
  catalog: ModelCatalog;
  sessions: SessionService;
  notifier: WorkNotifier;
}

/** The storage-state import must see bodies a little over 5 MiB to answer them 400, not 413. */
const STORAGE_STATE_BODY_LIMIT = 8 * 1024 * 1024;

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, db, logger } = deps;
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    bodyLimit: config.BODY_LIMIT_BYTES,
    trustProxy: config.TRUST_PROXY,
    return503OnClosing: true,
    forceCloseConnections: "idle",
    // Long ids must reach validation (422), not die in the router (414).
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 2048 },
  }).withTypeProvider<ZodTypeProvider>();
  // Fastify hands validators null for an absent body; the contract treats it as omitted.
  app.setValidatorCompiler<ZodType>((route) => {
    const validate = validatorCompiler(route);
    return route.httpPart === "body" ? (data: unknown) => validate(data === null ? undefined : data) : validate;
  });
  app.setSerializerCompiler(serializerCompiler);
  installJsonParser(app);
  installErrorHandling(app);

  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "Browser-Agent Service API",
        version: "1.12.0",
        description: "Self-hosted browser agents. Choices where api-v3.md is silent are documented in docs/api.md.",
      },
      servers: [{ url: "/" }],
      components: {
        securitySchemes: {
          bearerAuth: { type: "http", scheme: "bearer" },
          apiKeyHeader: { type: "apiKey", in: "header", name: "X-Browser-Use-API-Key" },
        },
      },
      security: [{ bearerAuth: [] }, { apiKeyHeader: [] }],
    },
    transform: jsonSchemaTransform,
    transformObject: (document) => useContractSchemaNames(jsonSchemaTransformObject(document)),
  });

  await app.register(healthRoutes, { db });
  app.get("/openapi.json", { schema: { hide: true } }, async () => app.swagger());

  await app.register(
    async (v3) => {
      await v3.register(tenantAuth, { db, failureLimit: config.AUTH_FAILURE_LIMIT, failureWindowSeconds: config.AUTH_FAILURE_WINDOW_SECONDS });
      await v3.register(profileRoutes, { db, storageStateBodyLimit: STORAGE_STATE_BODY_LIMIT });
      await v3.register(sessionRoutes, { db, sessions: deps.sessions });
    },
    { prefix: "/v3" },
  );

  await app.register(agentRoutes, {
    prefix: AGENT_API_PREFIX,
    db,
    sessions: deps.sessions,
    catalog: deps.catalog,
    notifier: deps.notifier,
    config,
  });

  return app;
}
