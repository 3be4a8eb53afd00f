import type { FailureKind } from "@browser-agents/protocol";
import { Prisma, type PrismaClient } from "../db/client-types.js";
import { newId } from "../ids.js";
import type { SessionStatus } from "./session-schemas.js";

/**
 * The session state machine of decisions.md. Every status change in the system happens here, as a
 * compare-and-set update (`where status in allowedFrom`), so two writers can never move one
 * session along two paths: the loser's update matches no row and it learns so from the count.
 */
export const LIVE_STATUSES = ["created", "idle", "running"] as const satisfies readonly SessionStatus[];

export function isLive(status: string): boolean {
  return (LIVE_STATUSES as readonly string[]).includes(status);
}

export interface NewWork {
  task: string;
  model: string;
  reasoningEffort: string;
  keepAlive: boolean;
  maxCostUsd: string | null;
  outputSchema: Record<string, unknown> | null;
  sensitiveData: Record<string, string> | null;
  systemPromptExtension: string | null;
}

export interface TaskOutcome {
  output: unknown;
  isTaskSuccessful: boolean;
  failureKind: FailureKind | null;
  failureStatusCode: number | null;
}

const jsonOrDbNull = (value: unknown) => (value === null || value === undefined ? Prisma.DbNull : (value as Prisma.InputJsonValue));

/** Fields that belong to the latest task and start over with new work (decisions.md). */
function freshTaskFields(now: Date) {
  return {
    output: Prisma.DbNull,
    isTaskSuccessful: null,
    failureKind: null,
    failureStatusCode: null,
    lastStepSummary: null,
    taskStartedAt: now,
    idleSince: null,
  };
}

function endedFields(now: Date) {
  return { endedAt: now, idleSince: null, sensitiveData: Prisma.DbNull };
}

export function humanMessage(sessionId: string, task: string) {
  return {
    id: newId(),
    sessionId,
    role: "human",
    type: "user_message",
    data: task,
    summary: task.length > 200 ? `${task.slice(0, 197)}...` : task,
    hidden: false,
  };
}

export class SessionStateMachine {
  constructor(private readonly db: PrismaClient) {}

  /** idle (or still starting) -> running with new work; records the task as a human message. */
  async giveWork(sessionId: string, work: NewWork): Promise<boolean> {
    const now = new Date();
    return this.db.$transaction(async (tx) => {
      const { count } = await tx.session.updateMany({
        where: { id: sessionId, status: { in: ["idle", "created"] } },
        data: {
          ...freshTaskFields(now),
          status: "running",
          task: work.task,
          taskNumber: { increment: 1 },
          model: work.model,
          reasoningEffort: work.reasoningEffort,
          keepAlive: work.keepAlive,
          maxCostUsd: work.maxCostUsd,
          outputSchema: jsonOrDbNull(work.outputSchema),
          sensitiveData: jsonOrDbNull(work.sensitiveData),
          systemPromptExtension: work.systemPromptExtension,
          updatedAt: now,
        },
      });
      if (count === 1) await tx.message.create({ data: humanMessage(sessionId, work.task) });
      return count === 1;
    });
  }

  /** created -> idle: the browser is up and waits for work. */
  async markReady(sessionId: string): Promise<boolean> {
    const now = new Date();
    const { count } = await this.db.session.updateMany({
      where: { id: sessionId, status: "created" },
      data: { status: "idle", idleSince: now, updatedAt: now },
    });
    return count === 1;
  }

  /** running -> stopped, or -> idle with keepAlive; only for the task that is current. */
  async finishTask(sessionId: string, taskNumber: number, outcome: TaskOutcome): Promise<SessionStatus | null> {
    const now = new Date();
    const result = {
      output: jsonOrDbNull(outcome.output),
      isTaskSuccessful: outcome.isTaskSuccessful,
      failureKind: outcome.failureKind,
      failureStatusCode: outcome.failureStatusCode,
      updatedAt: now,
    };
    const toIdle = await this.db.session.updateMany({
      where: { id: sessionId, status: "running", taskNumber, keepAlive: true },
      data: { ...result, status: "idle", idleSince: now },
    });
    if (toIdle.count === 1) return "idle";
    const toStopped = await this.db.session.updateMany({
      where: { id: sessionId, status: "running", taskNumber, keepAlive: false },
      data: { ...result, ...endedFields(now), status: "stopped" },
    });
    return toStopped.count === 1 ? "stopped" : null;
  }

  /**
   * Stop with strategy `session`: any live session -> stopped. Strategy `task`: running -> idle.
   * A run that was going is marked cancelled. Returns the status left behind, or null when nothing
   * changed (already ended, or nothing to cancel).
   */
  async stop(sessionId: string, strategy: "session" | "task"): Promise<SessionStatus | null> {
    const now = new Date();
    const cancelled = { isTaskSuccessful: false, failureKind: "cancelled", updatedAt: now };
    if (strategy === "task") {
      const { count } = await this.db.session.updateMany({
        where: { id: sessionId, status: "running" },
        data: { ...cancelled, status: "idle", idleSince: now },
      });
      return count === 1 ? "idle" : null;
    }
    const running = await this.db.session.updateMany({
      where: { id: sessionId, status: "running" },
      data: { ...cancelled, ...endedFields(now), status: "stopped" },
    });
    if (running.count === 1) return "stopped";
    const waiting = await this.db.session.updateMany({
      where: { id: sessionId, status: { in: ["created", "idle"] } },
      data: { ...endedFields(now), status: "stopped", updatedAt: now },
    });
    return waiting.count === 1 ? "stopped" : null;
  }

  /** Any live session -> error, with the reason recorded as a message the caller can read. */
  async fail(sessionId: string, failureKind: FailureKind, failureStatusCode: number | null, message: string): Promise<boolean> {
    const now = new Date();
    return this.db.$transaction(async (tx) => {
      const { count } = await tx.session.updateMany({
        where: { id: sessionId, status: { in: [...LIVE_STATUSES] } },
        data: { ...endedFields(now), status: "error", isTaskSuccessful: false, failureKind, failureStatusCode, updatedAt: now },
      });
      if (count === 1) {
        await tx.message.create({
          data: { id: newId(), sessionId, role: "ai", type: "error", data: message, summary: firstLine(message), hidden: false },
        });
      }
      return count === 1;
    });
  }

  /** idle past the idle timeout, or running past the time limit -> timed_out. */
  async timeOut(sessionId: string, from: "idle" | "running"): Promise<boolean> {
    const now = new Date();
    const { count } = await this.db.session.updateMany({
      where: { id: sessionId, status: from },
      data: {
        ...endedFields(now),
        status: "timed_out",
        updatedAt: now,
        ...(from === "running" ? { isTaskSuccessful: false, failureKind: "timed_out" } : {}),
      },
    });
    return count === 1;
  }
}

function firstLine(text: string): string {
  const line = text.split("\n")[0] ?? "";
  return line.length > 200 ? `${line.slice(0, 197)}...` : line;
}
