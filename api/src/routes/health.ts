import type { FastifyPluginAsync } from "fastify";
import type { PrismaClient } from "../db/client-types.js";
import { errors } from "../errors.js";

export const healthRoutes: FastifyPluginAsync<{ db: PrismaClient }> = async (app, { db }) => {
  app.get("/healthz", { schema: { hide: true } }, async () => ({ status: "ok" }));
  app.get("/readyz", { schema: { hide: true } }, async () => {
    try {
      await db.$queryRaw`SELECT 1`;
    } catch {
      throw errors.unavailable();
    }
    return { status: "ready" };
  });
};
