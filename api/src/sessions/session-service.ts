import { deriveAgentToken, hashToken, type FailureKind } from "@browser-agents/protocol";
import { Ajv2020 } from "ajv/dist/2020.js";
import type { Logger } from "pino";
import type { Config } from "../config.js";
import type { PrismaClient, Session } from "../db/client-types.js";
import { Prisma } from "../db/client-types.js";
import { AppError, errors } from "../errors.js";
import { UUID_PATTERN } from "../http/common-schemas.js";
import { newId } from "../ids.js";
import { REQUESTABLE_EFFORTS, type ModelCatalog, type RequestedEffort } from "../models/catalog.js";
import type { SessionRef, SessionRuntime } from "../runtime/session-runtime.js";
import type { TenantIdentity } from "../tenants/api-keys.js";
import type { RunTaskRequest } from "./session-schemas.js";
import { LIVE_STATUSES, SessionStateMachine, humanMessage, type NewWork, type TaskOutcome } from "./session-state.js";
import type { WorkNotifier } from "./work-notifier.js";

export interface SessionServiceDeps {
  db: PrismaClient;
  runtime: SessionRuntime;
  catalog: ModelCatalog;
  notifier: WorkNotifier;
  logger: Logger;
  config: Pick<Config, "SESSION_MAX_DURATION_SECONDS" | "SESSION_IDLE_TIMEOUT_SECONDS">;
  agentTokenSigningKey: string;
}

/** What the public operations do to sessions: validation, the state machine, then the runtime. */
export class SessionService {
  readonly state: SessionStateMachine;

  constructor(private readonly deps: SessionServiceDeps) {
    this.state = new SessionStateMachine(deps.db);
  }

  async find(tenant: TenantIdentity, id: string): Promise<Session> {
    const session = UUID_PATTERN.test(id)
      ? await this.deps.db.session.findFirst({ where: { id: id.toLowerCase(), tenantId: tenant.tenantId } })
      : null;
    if (!session) throw errors.sessionNotFound(id);
    return session;
  }

  async create(tenant: TenantIdentity, request: RunTaskRequest): Promise<Session> {
    if (request.sessionId) return this.giveWork(tenant, request.sessionId, request);
    const work = this.validateWork(request);
    const { db } = this.deps;
    if (request.profileId) {
      const { count } = await db.profile.updateMany({
        where: { tenantId: tenant.tenantId, id: request.profileId },
        data: { lastUsedAt: new Date() },
      });
      if (count === 0) throw errors.profileNotFound(request.profileId);
    }
    const id = newId();
    const now = new Date();
    const task = request.task ?? null;
    await db.$transaction(async (tx) => {
      await tx.session.create({
        data: {
          id,
          tenantId: tenant.tenantId,
          status: task ? "running" : "created",
          title: task ? titleOf(task) : null,
          task,
          taskNumber: task ? 1 : 0,
          taskStartedAt: task ? now : null,
          model: work.model,
          reasoningEffort: work.reasoningEffort,
          keepAlive: work.keepAlive,
          maxCostUsd: work.maxCostUsd,
          outputSchema: (work.outputSchema as Prisma.InputJsonValue | null) ?? Prisma.DbNull,
          sensitiveData: (work.sensitiveData as Prisma.InputJsonValue | null) ?? Prisma.DbNull,
          systemPromptExtension: work.systemPromptExtension,
          profileId: request.profileId ?? null,
          proxyCountryCode: request.proxyCountryCode ?? null,
          agentTokenHash: hashToken(deriveAgentToken(this.deps.agentTokenSigningKey, id)),
          createdAt: now,
          updatedAt: now,
        },
      });
      if (task) await tx.message.create({ data: humanMessage(id, task) });
    });
    await this.startRuntime({ id, tenantId: tenant.tenantId, tenantName: tenant.tenantName });
    return this.deps.db.session.findUniqueOrThrow({ where: { id } });
  }

  /** decisions.md: an idle session given new work with createSession + sessionId + task. */
  private async giveWork(tenant: TenantIdentity, sessionId: string, request: RunTaskRequest): Promise<Session> {
    if (!request.task) {
      throw new AppError(422, "validation_error", "Invalid request: body.task: required when sessionId is given", "Send the new task with the sessionId.", [
        { loc: ["body", "task"], msg: "required when sessionId is given", type: "missing" },
      ]);
    }
    const session = await this.find(tenant, sessionId);
    if (request.profileId && request.profileId !== session.profileId) {
      const profile = await this.deps.db.profile.findUnique({ where: { tenantId_id: { tenantId: tenant.tenantId, id: request.profileId } } });
      if (!profile) throw errors.profileNotFound(request.profileId);
    }
    const work = this.validateWork({ ...request, model: request.model ?? session.model });
    if (!(await this.state.giveWork(session.id, work))) {
      const current = await this.find(tenant, sessionId);
      if (current.status === "running") throw errors.sessionBusy(sessionId);
      throw errors.sessionNotIdle(sessionId, current.status);
    }
    this.deps.notifier.notify(session.id);
    await this.startRuntime({ id: session.id, tenantId: tenant.tenantId, tenantName: tenant.tenantName });
    return this.deps.db.session.findUniqueOrThrow({ where: { id: session.id } });
  }

  private validateWork(request: RunTaskRequest): NewWork {
    const { catalog } = this.deps;
    const modelName = request.model ?? catalog.defaultModel;
    const model = catalog.get(modelName);
    if (!model) throw errors.unknownModel(modelName, catalog.names());
    const effort = request.reasoningEffort ?? "default";
    if (!(REQUESTABLE_EFFORTS as readonly string[]).includes(effort) || catalog.resolveEffort(model, effort as RequestedEffort) === null) {
      throw errors.invalidReasoningEffort(effort, model.name, ["default", ...model.efforts]);
    }
    if (request.outputSchema) assertCompilableSchema(request.outputSchema);
    return {
      task: request.task ?? "",
      model: model.name,
      reasoningEffort: effort,
      keepAlive: request.keepAlive,
      maxCostUsd: request.maxCostUsd ?? null,
      outputSchema: request.outputSchema ?? null,
      sensitiveData: request.sensitiveData ?? null,
      systemPromptExtension: request.systemPromptExtension ?? null,
    };
  }

  private async startRuntime(ref: SessionRef): Promise<void> {
    try {
      await this.deps.runtime.start(ref);
    } catch (error) {
      this.deps.logger.error({ err: error, sessionId: ref.id }, "runtime failed to start the session");
      await this.state.fail(ref.id, "internal_error", null, "The session could not be started by the runtime.");
    }
  }

  async stop(tenant: TenantIdentity, id: string, strategy: "session" | "task"): Promise<Session> {
    const session = await this.find(tenant, id);
    const changed = await this.state.stop(session.id, strategy);
    if (changed) {
      this.deps.notifier.notify(session.id);
      // A stopped session is over: its runtime resources go. A stopped task keeps the session.
      if (changed === "stopped") await this.deps.runtime.delete(refOf(session, tenant));
      else await this.deps.runtime.stop(refOf(session, tenant), strategy);
    }
    return this.deps.db.session.findUniqueOrThrow({ where: { id: session.id } });
  }

  /** The agent's result for a task; ends the session unless it is kept alive. */
  async reportTaskResult(sessionId: string, taskNumber: number, outcome: TaskOutcome): Promise<{ status: string; applied: boolean }> {
    const status = await this.state.finishTask(sessionId, taskNumber, outcome);
    if (status) this.deps.notifier.notify(sessionId);
    if (status === "stopped") this.releaseEnded(sessionId);
    const now = status ?? (await this.deps.db.session.findUniqueOrThrow({ where: { id: sessionId }, select: { status: true } })).status;
    return { status: now, applied: status !== null };
  }

  /** The agent says it cannot go on (browser, model, internal failure). */
  async reportAgentFailure(sessionId: string, failureKind: FailureKind, failureStatusCode: number | null, message: string): Promise<void> {
    if (await this.state.fail(sessionId, failureKind, failureStatusCode, message)) {
      this.deps.notifier.notify(sessionId);
      this.releaseEnded(sessionId);
    }
  }

  /**
   * An ended session holds nothing: its agent process or pod, secret and AgentSession go. Not
   * awaited: the agent is usually the caller, and it saves its state on the way out.
   */
  private releaseEnded(sessionId: string): void {
    void (async () => {
      const session = await this.deps.db.session.findUnique({ where: { id: sessionId }, select: { tenant: { select: { id: true, name: true } } } });
      if (session) await this.deps.runtime.delete({ id: sessionId, tenantId: session.tenant.id, tenantName: session.tenant.name });
    })().catch((error: unknown) => this.deps.logger.warn({ err: error, sessionId }, "could not release the runtime resources of an ended session"));
  }

  async delete(tenant: TenantIdentity, id: string): Promise<void> {
    const session = await this.find(tenant, id);
    this.deps.notifier.notify(session.id);
    await this.deps.runtime.delete(refOf(session, tenant));
    await this.deps.db.session.deleteMany({ where: { id: session.id, tenantId: tenant.tenantId } });
  }

  /** A runtime saw an agent go away while its session was live. */
  async agentExited(sessionId: string, failureKind: FailureKind, message: string): Promise<void> {
    const failed =
      failureKind === "timed_out"
        ? (await this.state.timeOut(sessionId, "running")) || (await this.state.timeOut(sessionId, "idle"))
        : await this.state.fail(sessionId, failureKind, null, message);
    if (failed) {
      this.deps.notifier.notify(sessionId);
      this.releaseEnded(sessionId);
    }
  }

  /** Ends sessions past the idle timeout or the session time limit; returns how many. */
  async sweepTimeouts(now = new Date()): Promise<number> {
    const { db, config } = this.deps;
    const idleCutoff = new Date(now.getTime() - config.SESSION_IDLE_TIMEOUT_SECONDS * 1000);
    const runCutoff = new Date(now.getTime() - config.SESSION_MAX_DURATION_SECONDS * 1000);
    const expired = await db.session.findMany({
      where: {
        OR: [
          { status: "idle", idleSince: { lt: idleCutoff } },
          { status: "running", taskStartedAt: { lt: runCutoff } },
        ],
      },
      select: { id: true, status: true, tenant: { select: { id: true, name: true } } },
      take: 500,
    });
    let ended = 0;
    for (const session of expired) {
      if (await this.state.timeOut(session.id, session.status as "idle" | "running")) {
        ended += 1;
        this.deps.notifier.notify(session.id);
        await this.deps.runtime.delete({ id: session.id, tenantId: session.tenant.id, tenantName: session.tenant.name });
      }
    }
    return ended;
  }

  /** At start-up: let the runtime compare live sessions with what it really runs. */
  async recoverLiveSessions(): Promise<void> {
    const live = await this.deps.db.session.findMany({
      where: { status: { in: [...LIVE_STATUSES] } },
      select: { id: true, tenant: { select: { id: true, name: true } } },
    });
    await this.deps.runtime.recover(live.map((s) => ({ id: s.id, tenantId: s.tenant.id, tenantName: s.tenant.name })));
  }
}

function refOf(session: Session, tenant: TenantIdentity): SessionRef {
  return { id: session.id, tenantId: tenant.tenantId, tenantName: tenant.tenantName };
}

function titleOf(task: string): string {
  const line = task.trim().split("\n")[0] ?? "";
  return line.length > 100 ? `${line.slice(0, 97)}...` : line;
}

function assertCompilableSchema(schema: Record<string, unknown>): void {
  // A fresh compiler each time: Ajv caches every schema it compiles, and these come from callers.
  const { $schema: _dialect, ...body } = schema;
  try {
    new Ajv2020({ strict: false }).compile(body);
  } catch (error) {
    const message = (error as Error).message;
    throw new AppError(422, "validation_error", `Invalid request: body.outputSchema: ${message}`, "Send a valid JSON Schema (draft 2020-12 or 07) as outputSchema.", [
      { loc: ["body", "outputSchema"], msg: message, type: "invalid_json_schema" },
    ]);
  }
}
