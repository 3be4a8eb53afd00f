import type { IncomingHttpHeaders } from "node:http";
import { type ChatMessage, type ChatRequest, messageText } from "./chat-request.js";
import { PAGE_STATE_MARKER, type PageState, findElementIndex, parsePageState } from "./page-state.js";
import * as replies from "./replies.js";
import type { ScriptContext, ToolResult } from "./script-types.js";

export interface ContextInput {
  request: ChatRequest;
  headers: IncomingHttpHeaders;
  task: string;
  attempt: number;
}

export function countAssistantTurns(messages: ChatMessage[]): number {
  return messages.filter((m) => m.role === "assistant").length;
}

export function createScriptContext(input: ContextInput): ScriptContext {
  const messages = input.request.messages;
  let parsed: PageState | undefined;
  const pageState = (): PageState => {
    if (parsed) return parsed;
    const holder = [...messages]
      .reverse()
      .find((m) => m.role !== "assistant" && messageText(m).includes(PAGE_STATE_MARKER));
    if (!holder) throw new Error(`no page state ("${PAGE_STATE_MARKER}") in any message`);
    parsed = parsePageState(messageText(holder));
    return parsed;
  };
  const lastToolResults = (): ToolResult[] => findLastToolResults(messages);

  return {
    request: input.request,
    headers: input.headers,
    task: input.task,
    turn: countAssistantTurns(messages),
    attempt: input.attempt,
    text: () => {
      const latestUser = [...messages].reverse().find((m) => m.role === "user");
      return latestUser ? messageText(latestUser) : "";
    },
    pageState,
    pageUrl: () => pageState().url,
    elements: () => pageState().elements,
    tabs: () => pageState().tabs,
    findElement: (pattern) => findElementIndex(pageState(), pattern),
    lastToolResults,
    lastToolResultsText: () => lastToolResults().map((r) => r.content).join("\n"),
    ...replies,
  };
}

function findLastToolResults(messages: ChatMessage[]): ToolResult[] {
  let lastAssistant = -1;
  messages.forEach((m, i) => {
    if (m.role === "assistant") lastAssistant = i;
  });
  if (lastAssistant < 0) return [];
  const calledNames = new Map(
    (messages[lastAssistant]?.tool_calls ?? []).map((c) => [c.id, c.function.name] as const),
  );
  return messages
    .slice(lastAssistant + 1)
    .filter((m) => m.role === "tool")
    .map((m) => ({
      toolCallId: m.tool_call_id ?? "",
      name: calledNames.get(m.tool_call_id ?? ""),
      content: messageText(m),
    }));
}
