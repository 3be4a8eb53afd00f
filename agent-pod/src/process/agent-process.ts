import type { AgentFailure, WorkItem } from "@browser-agents/protocol";
import type { Logger } from "pino";
import { untilAborted } from "../browser/abortable.js";
import { runTask } from "../agent/loop.js";
import { SessionFailure, type TaskOutcome } from "../agent/task-outcome.js";
import { BrowserSession } from "../browser/index.js";
import type { AgentConfig } from "../config.js";
import type { LogSecrets } from "../logging/log-secrets.js";
import { SessionGoneError, type ReportApiClient } from "../report/api-client.js";
import { EventReporter } from "../report/event-reporter.js";

export interface AgentProcessOptions {
  config: AgentConfig;
  logger: Logger;
  logSecrets: LogSecrets;
  client: ReportApiClient;
  /** Aborts on SIGTERM/SIGINT (and stdin closing when configured): stop everything now. */
  shutdown: AbortSignal;
}

const WORK_WAIT_SECONDS = 20;
/** The whole shutdown must fit in 2 s; the caller's hard deadline backs these up. */
const SHUTDOWN_SAVE_MS = 1_100;
const SHUTDOWN_CLOSE_MS = 500;
const FAILURE_SAVE_MS = 10_000;

/**
 * The agent process: bootstrap -> browser -> ready -> work loop, and every way out of it.
 * Resolves with the exit code: 0 when the session ended (exit, stop, deletion, shutdown
 * signal), 1 when the agent reported a failure.
 */
export async function runAgentProcess(options: AgentProcessOptions): Promise<number> {
  const { config, logger, client, shutdown } = options;
  let running: { taskNumber: number; controller: AbortController } | null = null;
  const reporter = new EventReporter(client, {
    onError: (error) => logger.warn({ err: error }, "sending events failed; they stay queued"),
    onBatchResult: ({ sessionStatus, currentTaskNumber }) => {
      if (running === null || (sessionStatus === "running" && currentTaskNumber === running.taskNumber)) return;
      running.controller.abort(new TaskAbandoned(running.taskNumber, sessionStatus, currentTaskNumber));
    },
  });
  let browser: BrowserSession | null = null;
  let profileId: string | null = null;

  const saveStorageState = async (signal: AbortSignal): Promise<void> => {
    if (browser === null || profileId === null) return;
    try {
      const state = await untilAborted(browser.storageState(), signal);
      const { written } = await client.putStorageState(state, signal);
      logger.info({ written, cookies: state.cookies.length, origins: state.origins.length }, "storage state saved");
    } catch (error) {
      if (error instanceof SessionGoneError) throw error;
      logger.warn({ err: error }, "could not save the storage state");
    }
  };
  const closeBrowser = async (withinMs?: number): Promise<void> => {
    if (browser === null) return;
    const closing = browser.close().catch((error: unknown) => logger.warn({ err: error }, "closing the browser failed"));
    await (withinMs === undefined ? closing : untilAborted(closing, AbortSignal.timeout(withinMs)).catch(() => undefined));
  };
  const reportFailure = async (failure: AgentFailure): Promise<void> => {
    const message = options.logSecrets.current().redact(failure.message).slice(0, 4000);
    try {
      await client.postFailure({ ...failure, message }, AbortSignal.timeout(FAILURE_SAVE_MS));
    } catch (error) {
      logger.error({ err: error }, "could not report the failure");
    }
  };

  const runWork = async (work: WorkItem, session: BrowserSession): Promise<void> => {
    options.logSecrets.addTask(work.sensitiveData, work.model.apiKey);
    const taskLogger = logger.child({ taskNumber: work.taskNumber });
    taskLogger.info({ model: work.model.name, maxSteps: work.maxSteps, keepAlive: work.keepAlive }, "task started");
    const controller = new AbortController();
    running = { taskNumber: work.taskNumber, controller };
    let outcome: TaskOutcome;
    try {
      outcome = await runTask({
        work,
        browser: session,
        signal: AbortSignal.any([shutdown, controller.signal]),
        onEvent: (event) => reporter.add(work.taskNumber, event),
        logger: taskLogger,
      });
    } catch (error) {
      if (shutdown.aborted || !(controller.signal.reason instanceof TaskAbandoned)) throw error;
      // The API has moved on (the task was stopped or replaced): no result to report.
      taskLogger.info({ reason: controller.signal.reason.message }, "task abandoned");
      await flushEvents(reporter, logger);
      await saveStorageState(shutdown);
      return;
    } finally {
      running = null;
    }
    await flushEvents(reporter, logger);
    // Before the result: a caller who sees the session end may start the next one on this profile at once.
    await saveStorageState(shutdown);
    const answer = await client.postTaskResult(
      {
        taskNumber: work.taskNumber,
        output: outcome.output,
        isTaskSuccessful: outcome.isTaskSuccessful,
        failureKind: outcome.failureKind,
        failureStatusCode: outcome.failureStatusCode,
      },
      shutdown,
    );
    taskLogger.info({ status: answer.status, applied: answer.applied, costUsd: outcome.costUsd }, "task result reported");
  };

  try {
    const bootstrap = await client.bootstrap(shutdown);
    profileId = bootstrap.profileId;
    try {
      browser = await BrowserSession.launch({
        chromiumPath: config.CHROMIUM_PATH,
        extraFlags: config.CHROMIUM_FLAGS.split(/\s+/).filter((flag) => flag !== ""),
        devtoolsPort: config.DEVTOOLS_PORT,
        devtoolsAddress: config.DEVTOOLS_ADDRESS,
        storageState: bootstrap.storageState,
        logger,
      });
    } catch (error) {
      shutdown.throwIfAborted();
      logger.error({ err: error }, "the browser could not start");
      await reportFailure({ failureKind: "browser_error", failureStatusCode: null, message: `The browser could not start: ${messageOf(error)}` });
      return 1;
    }
    await client.ready({ devtoolsPort: browser.devtoolsPort }, shutdown);
    logger.info({ devtoolsPort: browser.devtoolsPort, profileId }, "agent ready");

    for (;;) {
      const response = await client.work(WORK_WAIT_SECONDS, shutdown);
      if (response.action === "wait") continue;
      if (response.action === "exit") {
        logger.info({ reason: response.reason }, "the API ended the session");
        await saveStorageState(AbortSignal.timeout(FAILURE_SAVE_MS));
        await closeBrowser();
        return 0;
      }
      await runWork(response.work, browser);
    }
  } catch (error) {
    if (shutdown.aborted) {
      logger.info("stopping: saving state and closing the browser");
      const deadline = AbortSignal.timeout(SHUTDOWN_SAVE_MS);
      await Promise.allSettled([untilAborted(reporter.flush(), deadline), saveStorageState(deadline)]);
      await closeBrowser(SHUTDOWN_CLOSE_MS);
      return 0;
    }
    if (error instanceof SessionGoneError) {
      logger.info({ status: error.status }, "the session is gone; exiting");
      await closeBrowser();
      return 0;
    }
    if (error instanceof SessionFailure) {
      logger.error({ err: error, failureKind: error.failureKind }, "the session cannot go on");
      await flushEvents(reporter, logger).catch(() => undefined);
      await reportFailure({ failureKind: error.failureKind, failureStatusCode: error.failureStatusCode, message: error.message });
      await saveStorageState(AbortSignal.timeout(FAILURE_SAVE_MS)).catch(() => undefined);
      await closeBrowser();
      return 1;
    }
    logger.error({ err: error }, "the agent failed");
    await reportFailure({ failureKind: "internal_error", failureStatusCode: null, message: `The agent failed: ${messageOf(error)}` });
    await closeBrowser();
    return 1;
  }
}

/** Events go before the task result; an API hiccup only delays them (they stay queued). */
async function flushEvents(reporter: EventReporter, logger: Logger): Promise<void> {
  try {
    await reporter.flush();
  } catch (error) {
    if (error instanceof SessionGoneError) throw error;
    logger.warn({ err: error, pending: reporter.pending }, "events not delivered yet");
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The API says the task being run is no longer current: it was stopped, or replaced. */
class TaskAbandoned extends Error {
  override readonly name = "TaskAbandoned";

  constructor(taskNumber: number, sessionStatus: string, currentTaskNumber: number) {
    super(`task ${taskNumber} is no longer current (session ${sessionStatus}, current task ${currentTaskNumber})`);
  }
}
