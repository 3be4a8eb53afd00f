import { timingSafeEqual } from "node:crypto";
import {
  AgentFailure,
  EventBatch,
  ReadyRequest,
  StorageState,
  TaskResult,
  hashToken,
  type EventBatchResult,
  type SessionBootstrap,
  type WorkResponse,
} from "@browser-agents/protocol";
import type { FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import type { Config } from "../config.js";
import { Prisma, type PrismaClient, type Session } from "../db/client-types.js";
import { AppError, errors } from "../errors.js";
import { UUID_PATTERN } from "../http/common-schemas.js";
import { newId } from "../ids.js";
import type { ModelCatalog, RequestedEffort } from "../models/catalog.js";
import { cookieDomainsOf, parseStorageState } from "../profiles/storage-state-import.js";
import { isLive } from "../sessions/session-state.js";
import type { SessionService } from "../sessions/session-service.js";
import type { WorkNotifier } from "../sessions/work-notifier.js";

export interface AgentRoutesOptions {
  db: PrismaClient;
  sessions: SessionService;
  catalog: ModelCatalog;
  notifier: WorkNotifier;
  config: Pick<Config, "MAX_STEPS">;
  /** How often a waiting long-poll re-reads the database (changes made by other replicas). */
  workRecheckMs?: number;
}

declare module "fastify" {
  interface FastifyRequest {
    agentSession: Session;
  }
}

const SessionParams = z.object({ session_id: z.string() });
const WorkQuery = z.object({ waitSeconds: z.coerce.number().int().min(0).max(60).default(20) });

const agentUnauthorized = () =>
  new AppError(401, "unauthorized", "Missing or invalid agent credential.", "Agents authenticate with their session's own AGENT_TOKEN as a Bearer token.");

function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, "hex");
  const right = Buffer.from(b, "hex");
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * The report protocol of protocol/src/report-protocol.ts. Only the session's own credential is
 * accepted; a tenant API key is not (and agent credentials are not accepted on /v3).
 */
export const agentRoutes: FastifyPluginAsyncZod<AgentRoutesOptions> = async (app, options) => {
  const { db, sessions, catalog, notifier, config } = options;
  const recheckMs = options.workRecheckMs ?? 2000;
  app.decorateRequest("agentSession", null as unknown as Session);

  app.addHook("preHandler", async (request: FastifyRequest) => {
    const match = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? "");
    if (!match?.[1]) throw agentUnauthorized();
    const id = (request.params as { session_id?: string }).session_id ?? "";
    const session = UUID_PATTERN.test(id) ? await db.session.findUnique({ where: { id: id.toLowerCase() } }) : null;
    if (!session) throw errors.sessionNotFound(id);
    if (!sameHash(hashToken(match[1]), session.agentTokenHash)) throw agentUnauthorized();
    request.agentSession = session;
  });

  const base = "/sessions/:session_id";
  const hide = { hide: true };

  app.get(`${base}/bootstrap`, { schema: { ...hide, params: SessionParams } }, async (request): Promise<SessionBootstrap> => {
    const session = request.agentSession;
    const profile = session.profileId
      ? await db.profile.findUnique({ where: { tenantId_id: { tenantId: session.tenantId, id: session.profileId } } })
      : null;
    return {
      sessionId: session.id,
      profileId: profile ? profile.id : null,
      storageState: profile ? StorageState.parse(profile.storageState) : null,
    };
  });

  app.post(`${base}/ready`, { schema: { ...hide, params: SessionParams, body: ReadyRequest.prefault({}) } }, async (request, reply) => {
    const session = request.agentSession;
    if (request.body.devtoolsPort !== null) {
      await db.session.update({ where: { id: session.id }, data: { devtoolsPort: request.body.devtoolsPort } });
    }
    await sessions.state.markReady(session.id);
    return reply.code(204).send();
  });

  app.get(
    `${base}/work`,
    { schema: { ...hide, params: SessionParams, querystring: WorkQuery } },
    async (request): Promise<WorkResponse> => {
      const deadline = Date.now() + request.query.waitSeconds * 1000;
      const gone = new AbortController();
      request.raw.once("close", () => gone.abort());
      let session: Session | null = request.agentSession;
      for (;;) {
        if (!session) return { action: "exit", reason: "the session was deleted" };
        if (session.status === "running") return { action: "run", work: workItemOf(session, catalog, config.MAX_STEPS) };
        if (!isLive(session.status)) return { action: "exit", reason: `the session is ${session.status}` };
        const remaining = deadline - Date.now();
        if (remaining <= 0 || gone.signal.aborted) return { action: "wait" };
        await notifier.wait(session.id, Math.min(remaining, recheckMs), gone.signal);
        session = await db.session.findUnique({ where: { id: session.id } });
      }
    },
  );

  app.post(`${base}/events`, { schema: { ...hide, params: SessionParams, body: EventBatch } }, async (request): Promise<EventBatchResult> => {
    const session = request.agentSession;
    return db.$transaction(async (tx) => {
      const fresh = await tx.agentEvent.createManyAndReturn({
        data: request.body.events.map((event) => ({ sessionId: session.id, eventId: event.eventId })),
        skipDuplicates: true,
        select: { eventId: true },
      });
      const freshIds = new Set(fresh.map((row) => row.eventId));
      const events = request.body.events.filter((event) => freshIds.has(event.eventId));
      const current = await tx.session.findUniqueOrThrow({ where: { id: session.id }, select: { taskNumber: true, status: true } });
      let steps = 0;
      let lastStepSummary: string | undefined;
      let inputTokens = 0;
      let outputTokens = 0;
      let cost = new Prisma.Decimal(0);
      const messages: Prisma.MessageCreateManyInput[] = [];
      for (const event of events) {
        if (event.kind === "message") {
          messages.push({ id: newId(), sessionId: session.id, role: event.role, type: event.type, data: event.data, summary: event.summary, hidden: event.hidden });
        } else if (event.kind === "step") {
          steps += 1;
          if (event.taskNumber === current.taskNumber) lastStepSummary = event.summary;
        } else {
          inputTokens += event.inputTokens;
          outputTokens += event.outputTokens;
          cost = cost.plus(event.costUsd);
        }
      }
      if (messages.length > 0) await tx.message.createMany({ data: messages });
      if (steps > 0 || inputTokens > 0 || outputTokens > 0 || !cost.isZero()) {
        await tx.session.update({
          where: { id: session.id },
          data: {
            stepCount: { increment: steps },
            ...(lastStepSummary !== undefined ? { lastStepSummary } : {}),
            totalInputTokens: { increment: inputTokens },
            totalOutputTokens: { increment: outputTokens },
            llmCostUsd: { increment: cost },
            updatedAt: new Date(),
          },
        });
      }
      return {
        applied: events.length,
        duplicates: request.body.events.length - events.length,
        stale: events.filter((event) => event.taskNumber !== current.taskNumber).length,
        sessionStatus: current.status,
        currentTaskNumber: current.taskNumber,
      };
    });
  });

  app.post(`${base}/task-result`, { schema: { ...hide, params: SessionParams, body: TaskResult } }, async (request) => {
    const { taskNumber, ...outcome } = request.body;
    return sessions.reportTaskResult(request.agentSession.id, taskNumber, outcome);
  });

  app.post(`${base}/failure`, { schema: { ...hide, params: SessionParams, body: AgentFailure } }, async (request, reply) => {
    const { failureKind, failureStatusCode, message } = request.body;
    await sessions.reportAgentFailure(request.agentSession.id, failureKind, failureStatusCode, message);
    return reply.code(204).send();
  });

  app.put(
    `${base}/storage-state`,
    { bodyLimit: 16 * 1024 * 1024, schema: { ...hide, params: SessionParams } },
    async (request) => {
      const session = request.agentSession;
      if (!session.profileId) return { written: false };
      const state = parseStorageState(request.body);
      // A profile deleted while the session ran stays deleted (decisions.md): update, never create.
      const { count } = await db.profile.updateMany({
        where: { tenantId: session.tenantId, id: session.profileId },
        data: { storageState: state as unknown as Prisma.InputJsonValue, cookieDomains: cookieDomainsOf(state), updatedAt: new Date() },
      });
      return { written: count === 1 };
    },
  );
};

function workItemOf(session: Session, catalog: ModelCatalog, maxSteps: number) {
  const model = catalog.get(session.model);
  if (!model) throw new AppError(409, "unknown_model", `Model ${session.model} is no longer in the catalog.`, "Restore the model in the catalog.");
  return {
    taskNumber: session.taskNumber,
    task: session.task ?? "",
    model: catalog.endpointFor(model, session.reasoningEffort as RequestedEffort),
    outputSchema: (session.outputSchema as Record<string, unknown> | null) ?? null,
    sensitiveData: (session.sensitiveData as Record<string, string> | null) ?? null,
    systemPromptExtension: session.systemPromptExtension,
    maxCostUsd: session.maxCostUsd ? session.maxCostUsd.toFixed() : null,
    spentCostUsd: session.llmCostUsd.plus(session.browserCostUsd).toFixed(),
    maxSteps,
    keepAlive: session.keepAlive,
  };
}
