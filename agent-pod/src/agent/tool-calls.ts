import type { FailureKind } from "@browser-agents/protocol";
import type { BrowserAction, PageState } from "../browser/index.js";
import type { AgentEventDraft } from "../report/event-reporter.js";
import { UnknownSecretError, type Redactor } from "../secrets/redactor.js";
import { untilAborted } from "../browser/abortable.js";
import { describeAction, elementsByIndex, truncate } from "./action-summary.js";
import type { AgentBrowser } from "./agent-browser.js";
import type { ToolCallOutcome } from "./conversation.js";
import type { LoopDetector } from "./loop-detector.js";
import type { ModelToolCall } from "./model-client.js";
import { parseToolCall, type ToolCallRequest } from "./tools.js";

export type DoneRequest = Extract<ToolCallRequest, { kind: "done" }>;

export interface FinalAnswer {
  output: unknown;
  isTaskSuccessful: boolean;
  failureKind: FailureKind | null;
  /** One line for the completion message. */
  summary: string;
}

/** The loop's judgement of a done call: the end of the task, or errors for the model to fix. */
export type DoneVerdict = { kind: "final"; answer: FinalAnswer } | { kind: "retry"; feedback: string };

export interface ToolCallContext {
  browser: AgentBrowser;
  redactor: Redactor;
  signal: AbortSignal;
  detector: LoopDetector;
  emit: (draft: AgentEventDraft) => void;
  /** The page state the model saw when it chose these calls. */
  seenState: PageState;
  judgeDone: (done: DoneRequest) => DoneVerdict;
}

export interface ToolCallsResult {
  outcomes: ToolCallOutcome[];
  /** One line per call for the compacted history. */
  digest: string[];
  /** What the step did, for its one-line summary. */
  descriptions: string[];
  succeeded: number;
  failed: number;
  /** Set when the same failing action keeps coming back. */
  loopWarning: string | null;
  loopGiveUp: boolean;
  final: FinalAnswer | null;
  /** The last HTTP error status a navigation produced, if any. */
  httpErrorStatus: number | null;
}

const PAGE_CHANGING_ACTIONS = new Set<BrowserAction["name"]>(["navigate", "go_back", "switch_tab", "close_tab"]);

/**
 * Runs the calls of one model reply in order. The batch stops when the page changes under it
 * (the model chose later calls for a page that is gone); skipped calls are answered as such.
 */
export async function runToolCalls(calls: readonly ModelToolCall[], ctx: ToolCallContext): Promise<ToolCallsResult> {
  const result: ToolCallsResult = {
    outcomes: [],
    digest: [],
    descriptions: [],
    succeeded: 0,
    failed: 0,
    loopWarning: null,
    loopGiveUp: false,
    final: null,
    httpErrorStatus: null,
  };
  const elements = elementsByIndex(ctx.seenState.elementsText);
  let skipReason: string | null = null;
  let lastAction: BrowserAction | null = null;

  for (const call of calls) {
    const answer = (text: string, content?: string): void => {
      const outcome: ToolCallOutcome = { toolCallId: call.id, result: ctx.redactor.redact(text) };
      if (content !== undefined) outcome.content = ctx.redactor.redact(content);
      result.outcomes.push(outcome);
      result.digest.push(ctx.redactor.redact(`${call.name} ${truncate(call.arguments, 200)} -> ${truncate(text, 200)}`));
    };
    if (skipReason !== null) {
      answer(`Not executed: ${skipReason}`);
      continue;
    }
    const request = parseToolCall(call.name, call.arguments);

    if (request.kind === "invalid") {
      result.failed += 1;
      answer(`Error: ${request.error}`);
      ctx.emit(message("browser_action_error", request.error, JSON.stringify({ tool: call.name, arguments: call.arguments })));
      noteLoop(result, ctx.detector.record({ invalid: call.name, arguments: call.arguments }, false), call.name);
      continue;
    }

    if (request.kind === "done") {
      if (lastAction !== null) {
        answer("Not executed: call done on its own, after you have seen the results of your actions.");
        continue;
      }
      const verdict = ctx.judgeDone(request);
      if (verdict.kind === "final") {
        answer("Task finished.");
        result.final = verdict.answer;
        result.descriptions.push(verdict.answer.summary);
        return result;
      }
      result.failed += 1;
      answer(verdict.feedback);
      result.descriptions.push("Output rejected by the output schema");
      skipReason = "done was rejected";
      continue;
    }

    const action = request.action;
    if (lastAction !== null) {
      const changed = await pageChangedSince(ctx, lastAction, action);
      if (changed !== null) {
        skipReason = `${changed}; choose again from the new page state`;
        answer(`Not executed: ${skipReason}`);
        continue;
      }
    }
    const description = ctx.redactor.redact(describeAction(action, elements));
    result.descriptions.push(description);
    ctx.emit(message("browser_action", description, JSON.stringify(action)));
    lastAction = action;

    let toExecute: BrowserAction;
    try {
      toExecute = action.name === "type" ? { ...action, text: ctx.redactor.substitute(action.text) } : action;
    } catch (error) {
      if (!(error instanceof UnknownSecretError)) throw error;
      result.failed += 1;
      answer(`Error: ${error.message}`);
      ctx.emit(message("browser_action_error", error.message, JSON.stringify({ ok: false, summary: error.message })));
      noteLoop(result, ctx.detector.record(action, false), description);
      continue;
    }
    const outcome = await untilAborted(ctx.browser.execute(toExecute, ctx.signal), ctx.signal);
    ctx.signal.throwIfAborted();
    const summary = ctx.redactor.redact(outcome.summary);
    if (outcome.httpStatus != null && outcome.httpStatus >= 400) result.httpErrorStatus = outcome.httpStatus;
    if (outcome.ok) result.succeeded += 1;
    else result.failed += 1;
    answer(outcome.ok ? summary : `Error: ${summary}`, outcome.content);
    ctx.emit(
      message(
        outcome.ok ? "browser_action_result" : "browser_action_error",
        summary,
        ctx.redactor.redact(JSON.stringify({ ok: outcome.ok, summary: outcome.summary, httpStatus: outcome.httpStatus ?? null })),
      ),
    );
    noteLoop(result, ctx.detector.record(action, outcome.ok), description);
  }
  return result;
}

function noteLoop(result: ToolCallsResult, verdict: ReturnType<LoopDetector["record"]>, what: string): void {
  if (verdict === "give_up") result.loopGiveUp = true;
  if (verdict === "warn") {
    result.loopWarning = `Warning: "${what}" has failed repeatedly. Do not repeat it; try a different approach, or call done with success=false if the task cannot be completed.`;
  }
}

/** Why the page the model chose for is gone, or null when later calls still apply to it. */
async function pageChangedSince(ctx: ToolCallContext, previous: BrowserAction, next: BrowserAction): Promise<string | null> {
  if (PAGE_CHANGING_ACTIONS.has(previous.name)) return `the page changed after ${previous.name}`;
  let now: PageState;
  try {
    now = await untilAborted(ctx.browser.pageState(), ctx.signal);
  } catch (error) {
    ctx.signal.throwIfAborted();
    return `the page could not be read (${error instanceof Error ? error.message : String(error)})`;
  }
  if (now.url !== ctx.seenState.url) return `the page changed to ${now.url}`;
  // Indices stay meaningful while the same kinds of elements stand in the same order.
  if ("index" in next && next.index !== undefined && elementShape(now.elementsText) !== elementShape(ctx.seenState.elementsText)) {
    return "the page's elements changed";
  }
  return null;
}

function elementShape(elementsText: string): string {
  return [...elementsText.matchAll(/^\s*\[(\d+)\]<([\w-]+)/gm)].map((match) => `${match[1]}:${match[2]}`).join(",");
}

function message(type: string, summary: string, data: string): AgentEventDraft {
  return { kind: "message", role: "ai", type, summary: truncate(summary, 300), data };
}
