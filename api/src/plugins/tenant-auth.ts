import type { FastifyInstance, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import type { PrismaClient } from "../db/client-types.js";
import { errors } from "../errors.js";
import { FailedAuthLimiter } from "../http/failed-auth-limiter.js";
import { identifyApiKey, type TenantIdentity } from "../tenants/api-keys.js";

declare module "fastify" {
  interface FastifyRequest {
    tenant: TenantIdentity;
  }
}

export interface TenantAuthOptions {
  db: PrismaClient;
  failureLimit: number;
  failureWindowSeconds: number;
}

/**
 * decisions.md: the key comes as `Authorization: Bearer <key>` or `X-Browser-Use-API-Key`; either
 * is enough, both disagreeing is 401; HTTP basic is never a credential; `x-service-api-key` is ignored.
 */
export function presentedKey(request: FastifyRequest): string | null | "conflict" {
  const authorization = request.headers.authorization;
  let bearer: string | null = null;
  if (authorization !== undefined) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match?.[1]) return null;
    bearer = match[1];
  }
  const headerValue = request.headers["x-browser-use-api-key"];
  const headerKey = typeof headerValue === "string" && headerValue.trim() ? headerValue.trim() : null;
  if (bearer && headerKey && bearer !== headerKey) return "conflict";
  return bearer ?? headerKey;
}

async function tenantAuth(app: FastifyInstance, options: TenantAuthOptions) {
  const limiter = new FailedAuthLimiter(options.failureLimit, options.failureWindowSeconds * 1000);
  app.decorateRequest("tenant", null as unknown as TenantIdentity);

  app.addHook("onRequest", async (request) => {
    const retryAfter = limiter.retryAfterSeconds(request.ip);
    if (retryAfter > 0) throw errors.rateLimited(retryAfter);
    const key = presentedKey(request);
    const identity = key && key !== "conflict" ? await identifyApiKey(options.db, key) : null;
    if (!identity) {
      limiter.recordFailure(request.ip);
      throw errors.unauthorized(key === "conflict" ? "The two API key headers disagree." : undefined);
    }
    request.tenant = identity;
  });
}

export default fp(tenantAuth, { name: "tenant-auth" });
