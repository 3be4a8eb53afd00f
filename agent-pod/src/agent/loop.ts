import type { WorkItem } from "@browser-agents/protocol";
import type { Logger } from "pino";
import { formatPageState, type PageState } from "../browser/index.js";
import type { AgentEventDraft } from "../report/event-reporter.js";
import { Redactor } from "../secrets/redactor.js";
import { untilAborted } from "../browser/abortable.js";
import { truncate } from "./action-summary.js";
import type { AgentBrowser } from "./agent-browser.js";
import { buildConversation, type StepRecord } from "./conversation.js";
import { CostBudget, costOfCall, estimateTokens, type TokenUsage } from "./cost.js";
import { DEFAULT_LOOP_DETECTOR_OPTIONS, LoopDetector, type LoopDetectorOptions } from "./loop-detector.js";
import { ModelCallError, createModelClient, type ModelReply } from "./model-client.js";
import { InvalidOutputSchemaError, compileOutputSchema, type OutputValidator } from "./output-schema.js";
import { buildSystemPrompt } from "./system-prompt.js";
import { SessionFailure, type TaskOutcome } from "./task-outcome.js";
import { judgeDoneCall } from "./done-verdict.js";
import { runToolCalls, type DoneRequest, type DoneVerdict, type FinalAnswer } from "./tool-calls.js";
import { buildTools } from "./tools.js";
import { costOfTokens, formatUsd } from "./usd.js";

export interface LoopSettings {
  /** Steps in a row without one successful action before the agent gives up. */
  maxConsecutiveFailures: number;
  /** Times a done whose output breaks the output schema is sent back for correction. */
  maxOutputCorrections: number;
  loopDetector: LoopDetectorOptions;
  /** Recent steps kept as full tool-call turns; older ones become a text digest. */
  keepSteps: number;
  maxDigestLines: number;
  /** Retries of a transient model failure (429, 5xx, connection) before it is an llm_error. */
  modelMaxRetries: number;
  modelTimeoutMs: number;
}

export const DEFAULT_LOOP_SETTINGS: LoopSettings = {
  maxConsecutiveFailures: 5,
  maxOutputCorrections: 2,
  loopDetector: DEFAULT_LOOP_DETECTOR_OPTIONS,
  keepSteps: 30,
  maxDigestLines: 120,
  modelMaxRetries: 3,
  modelTimeoutMs: 180_000,
};

export interface StepFinished {
  stepNumber: number;
  /** The step in one line (also sent as the step event). */
  summary: string;
  /** USD spent on this step's model call, and on the task so far. */
  stepCostUsd: string;
  taskCostUsd: string;
}

export interface RunTaskOptions {
  work: WorkItem;
  browser: AgentBrowser;
  /** Aborting stops the task at once: the model call or action in flight is abandoned. */
  signal: AbortSignal;
  /** Messages, steps and usage, in order, already redacted. */
  onEvent: (event: AgentEventDraft) => void;
  onStepFinish?: (step: StepFinished) => void;
  logger: Logger;
  settings?: Partial<LoopSettings>;
}

/**
 * Runs one task to its end: each step reads the page, makes one model call with the tools, and
 * runs the calls it returns. Resolves with the outcome for the task result; rejects with
 * SessionFailure when the session cannot go on, and with the signal's reason when aborted.
 */
export async function runTask(options: RunTaskOptions): Promise<TaskOutcome> {
  const { work, browser, signal, logger } = options;
  const settings = { ...DEFAULT_LOOP_SETTINGS, ...options.settings };
  const redactor = new Redactor(work.sensitiveData);
  const emit = (draft: AgentEventDraft): void => options.onEvent(redactDraft(draft, redactor));
  const budget = new CostBudget(work.maxCostUsd, work.spentCostUsd);
  let stepsTaken = 0;

  const finish = (answer: FinalAnswer, failureStatusCode: number | null = null): TaskOutcome => {
    const output = redactor.redactValue(answer.output);
    emit({ kind: "message", role: "ai", type: "completion", data: JSON.stringify(output), summary: truncate(answer.summary, 300) });
    logger.info({ steps: stepsTaken, isTaskSuccessful: answer.isTaskSuccessful, failureKind: answer.failureKind }, "task finished");
    return {
      output,
      isTaskSuccessful: answer.isTaskSuccessful,
      failureKind: answer.failureKind,
      failureStatusCode,
      steps: stepsTaken,
      costUsd: formatUsd(budget.taskCost),
    };
  };
  const failed = (failureKind: NonNullable<FinalAnswer["failureKind"]>, summary: string): FinalAnswer => ({
    output: null,
    isTaskSuccessful: false,
    failureKind,
    summary,
  });

  let validator: OutputValidator | null = null;
  if (work.outputSchema !== null) {
    try {
      validator = compileOutputSchema(work.outputSchema);
    } catch (error) {
      if (!(error instanceof InvalidOutputSchemaError)) throw error;
      return finish(failed("output_schema_mismatch", error.message));
    }
  }
  let corrections = 0;
  const judgeDone = (done: DoneRequest): DoneVerdict => {
    const judged = judgeDoneCall(done, validator, corrections, settings.maxOutputCorrections, redactor);
    if (judged.kind === "retry") corrections += 1;
    return judged;
  };

  const tools = buildTools(work.outputSchema);
  const systemPrompt = buildSystemPrompt({
    secretKeys: redactor.secretKeys,
    hasOutputSchema: validator !== null,
    extension: work.systemPromptExtension,
  });
  const taskMessage = redactor.redact(`Your task:\n${work.task}`);
  const model = createModelClient(work.model, { maxRetries: settings.modelMaxRetries, timeoutMs: settings.modelTimeoutMs });
  const detector = new LoopDetector(settings.loopDetector);
  const steps: StepRecord[] = [];
  let notes: string[] = [];
  let consecutiveFailures = 0;
  let httpErrorStatus: number | null = null;

  for (let stepNumber = 1; stepNumber <= work.maxSteps; stepNumber += 1) {
    signal.throwIfAborted();
    const state = await readPageState(browser, signal);
    if (stepNumber === work.maxSteps) notes.push("This is your last step: call done now with what you have.");
    const currentMessage = redactor.redact(
      [`Step ${stepNumber} of at most ${work.maxSteps}. Current page state:`, formatPageState(state), ...notes].join("\n\n"),
    );
    notes = [];
    const messages = buildConversation({
      systemPrompt,
      taskMessage,
      steps,
      currentMessage,
      keepSteps: settings.keepSteps,
      maxDigestLines: settings.maxDigestLines,
    });
    const promptCharacters = JSON.stringify(messages).length + JSON.stringify(tools).length;
    if (budget.wouldExceed(costOfTokens(estimateTokens(promptCharacters), work.model.inputPricePerMillionUsd))) {
      return finish(failed("max_cost_exceeded", "Stopped: the next model call would exceed the cost limit"));
    }

    let reply: ModelReply;
    try {
      reply = await model.complete(messages, tools, signal);
    } catch (error) {
      signal.throwIfAborted();
      if (!(error instanceof ModelCallError)) throw error;
      logger.warn({ err: error, statusCode: error.statusCode }, "model call failed");
      if (error.sessionFatal) throw new SessionFailure("llm_error", error.statusCode, error.message);
      return finish(failed("llm_error", `Stopped: ${error.message}`), error.statusCode);
    }
    stepsTaken = stepNumber;
    const usage = reply.usage ?? estimatedUsage(promptCharacters, reply);
    const stepCost = costOfCall(usage, work.model);
    budget.record(stepCost);
    emit({ kind: "usage", inputTokens: usage.inputTokens, outputTokens: usage.outputTokens, costUsd: formatUsd(stepCost) });
    const thoughts = reply.content?.trim() ? reply.content.trim() : null;
    if (thoughts !== null) emit({ kind: "message", role: "ai", type: "planning", data: thoughts, summary: truncate(thoughts, 200) });

    const calls = await runToolCalls(reply.toolCalls, { browser, redactor, signal, detector, emit, seenState: state, judgeDone });
    if (calls.httpErrorStatus !== null) httpErrorStatus = calls.httpErrorStatus;
    if (reply.toolCalls.length === 0) notes.push("You answered without calling a tool. Every answer must call at least one tool.");
    if (calls.loopWarning !== null) notes.push(calls.loopWarning);
    steps.push({
      stepNumber,
      location: redactor.redact(`${state.url} (${state.title})`),
      thoughts: thoughts === null ? null : redactor.redact(thoughts),
      toolCalls: reply.toolCalls.map((call) => ({ ...call, arguments: redactor.redact(call.arguments) })),
      outcomes: calls.outcomes,
      digest: calls.digest,
    });
    const summary = redactor.redact(stepSummary(calls.descriptions, reply));
    emit({ kind: "step", stepNumber, summary });
    options.onStepFinish?.({ stepNumber, summary, stepCostUsd: formatUsd(stepCost), taskCostUsd: formatUsd(budget.taskCost) });
    logger.debug({ stepNumber, summary }, "step finished");

    if (calls.final !== null) return finish(calls.final);
    if (calls.loopGiveUp) {
      return finish(failed("agent_gave_up", "Gave up: the same action kept failing"), httpErrorStatus);
    }
    consecutiveFailures = calls.succeeded > 0 ? 0 : consecutiveFailures + 1;
    if (consecutiveFailures >= settings.maxConsecutiveFailures) {
      return finish(failed("agent_gave_up", `Gave up after ${consecutiveFailures} steps in a row without progress`), httpErrorStatus);
    }
  }
  return finish(failed("max_steps_reached", `Stopped: the step limit of ${work.maxSteps} steps was reached`));
}

async function readPageState(browser: AgentBrowser, signal: AbortSignal): Promise<PageState> {
  try {
    return await untilAborted(browser.pageState(), signal);
  } catch (error) {
    signal.throwIfAborted();
    throw new SessionFailure("browser_error", null, `The browser could not read the page: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function estimatedUsage(promptCharacters: number, reply: ModelReply): TokenUsage {
  const replyCharacters = (reply.content ?? "").length + reply.toolCalls.reduce((sum, call) => sum + call.name.length + call.arguments.length, 0);
  return { inputTokens: estimateTokens(promptCharacters), outputTokens: estimateTokens(replyCharacters) };
}

function stepSummary(descriptions: readonly string[], reply: ModelReply): string {
  if (descriptions.length > 0) return truncate(descriptions.join("; "), 300);
  if (reply.toolCalls.length === 0) return "No action: the model answered without calling a tool";
  return "No action: the tool calls were invalid";
}

function redactDraft(draft: AgentEventDraft, redactor: Redactor): AgentEventDraft {
  if (draft.kind === "message") return { ...draft, data: redactor.redact(draft.data), summary: redactor.redact(draft.summary) };
  if (draft.kind === "step") return { ...draft, summary: redactor.redact(draft.summary) };
  return draft;
}
