import type { IncomingHttpHeaders } from "node:http";
import type { ChatRequest } from "./chat-request.js";
import type { PageElement, PageState, PageTab } from "./page-state.js";

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
}

export interface ToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

export interface ToolCallsReply {
  kind: "tool_calls";
  calls: ToolCall[];
  /** Optional assistant text sent alongside the calls. */
  content?: string;
  usage?: Usage;
}

export interface TextReply {
  kind: "text";
  content: string;
  usage?: Usage;
}

export interface HttpErrorReply {
  kind: "http_error";
  status: number;
  body: unknown;
}

export interface DelayReply {
  kind: "delay";
  /** Infinity: never answers; ends only when the client aborts or the server closes. */
  ms: number;
  then?: ScriptReply;
}

export type ScriptReply = ToolCallsReply | TextReply | HttpErrorReply | DelayReply;

/** What a script returns: one reply, or several tool-call replies merged into one answer. */
export type ScriptResult = ScriptReply | ToolCallsReply[];

export interface DoneArguments {
  success: boolean;
  output: unknown;
  text?: string;
}

export interface ToolResult {
  toolCallId: string;
  /** Name of the tool the result answers, from the assistant message that called it. */
  name: string | undefined;
  content: string;
}

export interface ScriptContext {
  request: ChatRequest;
  headers: IncomingHttpHeaders;
  /** The text the script's `match` was tested against (the first user message, or all prompts). */
  task: string;
  /** Assistant messages already in the conversation: 0 on the first model call of a task. */
  turn: number;
  /** Earlier requests this server answered for the same task text and turn (retries): 0 first. */
  attempt: number;
  /** Text of the latest user message. */
  text(): string;
  /** The latest page state in the conversation (latest non-assistant message holding one). */
  pageState(): PageState;
  pageUrl(): string;
  elements(): PageElement[];
  tabs(): PageTab[];
  /** Index of the first element whose listing matches; throws listing every element when none. */
  findElement(pattern: RegExp | string): number;
  /** Tool messages after the last assistant message. */
  lastToolResults(): ToolResult[];
  /** Contents of lastToolResults() joined with newlines. */
  lastToolResultsText(): string;
  call(name: string, args?: Record<string, unknown>): ToolCallsReply;
  done(args: DoneArguments): ToolCallsReply;
  message(content: string): TextReply;
  httpError(status: number, body?: unknown): HttpErrorReply;
  /** Answers `then` after ms, unless the client aborts or the server closes first. */
  delay(ms: number, then: ScriptReply): DelayReply;
  /** Never answers: for stopping a session while its model call is in flight. */
  hang(): DelayReply;
}

export interface FakeLlmScript {
  /** Shown in records and errors. */
  name: string;
  /** Tested against the task text; the first matching script answers. */
  match: RegExp;
  respond(ctx: ScriptContext): ScriptResult | Promise<ScriptResult>;
}
