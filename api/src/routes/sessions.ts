import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import type { PrismaClient } from "../db/client-types.js";
import { PageQuery, errorResponses } from "../http/common-schemas.js";
import { readMessagePage } from "../sessions/message-pages.js";
import {
  MessageListQuery,
  MessageListResponse,
  RunTaskRequest,
  SessionIdParams,
  SessionListResponse,
  SessionResponse,
  StopSessionRequest,
} from "../sessions/session-schemas.js";
import type { SessionService } from "../sessions/session-service.js";
import { sessionView } from "../sessions/session-view.js";

export interface SessionRoutesOptions {
  db: PrismaClient;
  sessions: SessionService;
}

const tags = ["Sessions"];

export const sessionRoutes: FastifyPluginAsyncZod<SessionRoutesOptions> = async (app, { db, sessions }) => {
  app.post(
    "/sessions",
    {
      config: { validationShape: "envelope" },
      schema: {
        operationId: "createSession",
        tags,
        description: "Starts a session (with `task`: running at once; without: created, then idle). With `sessionId` + `task`, gives an idle session new work.",
        body: RunTaskRequest,
        response: { 200: SessionResponse, ...errorResponses("envelope", [404, 409]) },
      },
    },
    async (request) => sessionView(await sessions.create(request.tenant, request.body)),
  );

  app.get(
    "/sessions",
    {
      config: { validationShape: "envelope" },
      schema: { operationId: "listSessions", tags, querystring: PageQuery, response: { 200: SessionListResponse, ...errorResponses("envelope") } },
    },
    async (request) => {
      const { page, page_size: pageSize } = request.query;
      const where = { tenantId: request.tenant.tenantId };
      const [rows, total] = await Promise.all([
        db.session.findMany({ where, orderBy: [{ createdAt: "desc" }, { id: "desc" }], skip: (page - 1) * pageSize, take: pageSize }),
        db.session.count({ where }),
      ]);
      return { sessions: rows.map((row) => sessionView(row)), total, page, pageSize };
    },
  );

  app.get(
    "/sessions/:session_id",
    {
      config: { validationShape: "detail" },
      schema: { operationId: "getSession", tags, params: SessionIdParams, response: { 200: SessionResponse, ...errorResponses("detail", [404]) } },
    },
    async (request) => sessionView(await sessions.find(request.tenant, request.params.session_id)),
  );

  app.delete(
    "/sessions/:session_id",
    {
      config: { validationShape: "detail" },
      schema: { operationId: "deleteSession", tags, params: SessionIdParams, response: { 204: z.null(), ...errorResponses("detail", [404]) } },
    },
    async (request, reply) => {
      await sessions.delete(request.tenant, request.params.session_id);
      return reply.code(204).send(null);
    },
  );

  app.get(
    "/sessions/:session_id/messages",
    {
      config: { validationShape: "envelope" },
      schema: {
        operationId: "listSessionMessages",
        tags,
        params: SessionIdParams,
        querystring: MessageListQuery,
        response: { 200: MessageListResponse, ...errorResponses("envelope", [404]) },
      },
    },
    async (request) => {
      const session = await sessions.find(request.tenant, request.params.session_id);
      return readMessagePage(db, session.id, request.query);
    },
  );

  app.post(
    "/sessions/:session_id/stop",
    {
      config: { validationShape: "detail" },
      schema: {
        operationId: "stopSession",
        tags,
        params: SessionIdParams,
        body: StopSessionRequest,
        response: { 200: SessionResponse, ...errorResponses("detail", [404]) },
      },
    },
    async (request) => sessionView(await sessions.stop(request.tenant, request.params.session_id, request.body.strategy)),
  );
};
