// The floor getSession is compared with: a bare Fastify route, no auth, no zod, that runs the same
// single-row query (the session row by id) through the same Prisma client and pool.
import Fastify, { type FastifyInstance } from "fastify";
import type { PrismaClient } from "../../api/src/db/client-types.js";

export interface BareServer {
  url: string;
  close(): Promise<void>;
}

export const BARE_SESSION_PATH = "/bare/sessions/";

export async function startBareServer(db: PrismaClient): Promise<BareServer> {
  const app: FastifyInstance = Fastify({ logger: false });
  app.get<{ Params: { id: string } }>(`${BARE_SESSION_PATH}:id`, async (request, reply) => {
    const session = await db.session.findUnique({ where: { id: request.params.id } });
    if (!session) return reply.code(404).send({ detail: "not found" });
    return session;
  });
  const address = await app.listen({ host: "127.0.0.1", port: 0 });
  return { url: address, close: () => app.close() };
}
