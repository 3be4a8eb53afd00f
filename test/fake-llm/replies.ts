import type {
  DelayReply,
  DoneArguments,
  HttpErrorReply,
  ScriptReply,
  TextReply,
  ToolCallsReply,
} from "./script-types.js";

export function call(name: string, args: Record<string, unknown> = {}): ToolCallsReply {
  return { kind: "tool_calls", calls: [{ name, arguments: args }] };
}

/** The agent's final-answer tool. */
export function done(args: DoneArguments): ToolCallsReply {
  return call("done", { ...args });
}

export function message(content: string): TextReply {
  return { kind: "text", content };
}

export function httpError(status: number, body?: unknown): HttpErrorReply {
  return {
    kind: "http_error",
    status,
    body: body ?? { error: { message: `fake LLM error ${status}`, type: "fake_error", code: null } },
  };
}

export function delay(ms: number, then: ScriptReply): DelayReply {
  return { kind: "delay", ms, then };
}

export function hang(): DelayReply {
  return { kind: "delay", ms: Number.POSITIVE_INFINITY };
}
