// The floor getSession is compared with: a bare Fastify server, no auth hook, no zod, no view
// mapping, on the API's own Prisma client and pool. Two routes:
// - /bare/sessions/:id: the same single-row query only (the session row by id);
// - /bare/same-queries/sessions/:id: every statement getSession sends (the key lookup, then the
//   session), through the API's own functions, so the gap to getSession is what is not SQL.
import Fastify, { type FastifyInstance } from "fastify";
import type { PrismaClient } from "../../api/src/db/client-types.js";
import type { SessionService } from "../../api/src/sessions/session-service.js";
import { identifyApiKey } from "../../api/src/tenants/api-keys.js";

export interface BareServer {
  url: string;
  close(): Promise<void>;
}

export const BARE_SESSION_PATH = "/bare/sessions/";
export const BARE_SAME_QUERIES_PATH = "/bare/same-queries/sessions/";

export async function startBareServer(db: PrismaClient, sessions: SessionService): Promise<BareServer> {
  const app: FastifyInstance = Fastify({ logger: false });
  app.get<{ Params: { id: string } }>(`${BARE_SESSION_PATH}:id`, async (request, reply) => {
    const session = await db.session.findUnique({ where: { id: request.params.id } });
    if (!session) return reply.code(404).send({ detail: "not found" });
    return session;
  });
  app.get<{ Params: { id: string } }>(`${BARE_SAME_QUERIES_PATH}:id`, async (request, reply) => {
    const key = request.headers.authorization?.replace(/^Bearer /, "") ?? "";
    const tenant = await identifyApiKey(db, key);
    if (!tenant) return reply.code(401).send({ detail: "unauthorized" });
    return sessions.find(tenant, request.params.id);
  });
  const address = await app.listen({ host: "127.0.0.1", port: 0 });
  return { url: address, close: () => app.close() };
}
