// Reads the fake LLM's request log: the gaps between model calls and the page states they carry.
import { messageText } from "../../test/fake-llm/chat-request.js";
import { type RecordedRequest, parsePageState } from "../../test/fake-llm/index.js";

export interface ModelCall {
  turn: number;
  receivedAt: number;
  answeredAt: number;
  /** Characters of the whole request body (system prompt, tools, history, page state). */
  bodyChars: number;
  /** The page state the agent sent with this call (from `Current URL:` to the end of the block). */
  pageStateText: string;
}

/** The answered chat calls whose first user message contains marker, in turn order. */
export function modelCallsOf(requests: readonly RecordedRequest[], marker: string): ModelCall[] {
  const calls: ModelCall[] = [];
  for (const request of requests) {
    const messages = request.chat?.messages;
    if (!messages || request.response?.status !== 200 || request.answeredAt === undefined || request.turn === undefined) continue;
    const firstUser = messages.find((m) => m.role === "user");
    if (!firstUser || !messageText(firstUser).includes(marker)) continue;
    const latestUser = [...messages].reverse().find((m) => m.role === "user");
    calls.push({
      turn: request.turn,
      receivedAt: request.receivedAt,
      answeredAt: request.answeredAt,
      bodyChars: request.rawBody.length,
      pageStateText: latestUser ? pageStateBlock(messageText(latestUser)) : "",
    });
  }
  return calls.sort((a, b) => a.turn - b.turn);
}

/** The page state inside the step message: notes after it are separated by a blank line. */
export function pageStateBlock(text: string): string {
  const start = text.indexOf("Current URL:");
  if (start < 0) return "";
  const end = text.indexOf("\n\n", start);
  return end < 0 ? text.slice(start) : text.slice(start, end);
}

export interface StepGap {
  /** The turn whose answer the agent executed during the gap. */
  turn: number;
  /** Model answer written -> next model request received (action, page state, reporting). */
  ms: number;
}

export function stepGaps(calls: readonly ModelCall[]): StepGap[] {
  const gaps: StepGap[] = [];
  for (let i = 1; i < calls.length; i += 1) {
    const previous = calls[i - 1] as ModelCall;
    const current = calls[i] as ModelCall;
    if (current.turn !== previous.turn + 1) continue;
    gaps.push({ turn: previous.turn, ms: current.receivedAt - previous.answeredAt });
  }
  return gaps;
}

export interface PageStateSize {
  /** URL path and query relative to the site, plus the title (a form and its confirmation share a URL). */
  page: string;
  chars: number;
  /** chars / 4, rounded up: an estimate, not a tokenizer's count. */
  estimatedTokens: number;
  elements: number;
}

export function pageStateSize(text: string, siteOrigin: string): PageStateSize {
  const state = parsePageState(text);
  const where = state.url.startsWith(siteOrigin) ? state.url.slice(siteOrigin.length) || "/" : state.url;
  return {
    page: `${where} (${state.title || "no title"})`,
    chars: text.length,
    estimatedTokens: Math.ceil(text.length / 4),
    elements: state.elements.length,
  };
}
