import { type ChatRequest, offeredToolNames } from "./chat-request.js";
import type { ToolCallsReply } from "./script-types.js";

export class ScriptReplyError extends Error {}

/** A script calling a tool the agent did not offer is a bug in the script or the agent: say so. */
export function checkOfferedTools(request: ChatRequest, reply: ToolCallsReply): void {
  const offered = offeredToolNames(request);
  if (reply.calls.length === 0) throw new ScriptReplyError("returned no tool calls");
  if (offered === undefined) return;
  for (const call of reply.calls) {
    if (!offered.includes(call.name)) {
      throw new ScriptReplyError(`called tool "${call.name}", which the request does not offer (offered: ${offered.join(", ")})`);
    }
  }
}

/** Ends early, without throwing, when the signal aborts; its reason says why ("aborted" | "closed"). */
export function waitUnlessAborted(
  ms: number,
  signal: AbortSignal,
): Promise<"elapsed" | "aborted" | "closed"> {
  const reasonOf = (): "aborted" | "closed" => (signal.reason === "closed" ? "closed" : "aborted");
  if (signal.aborted) return Promise.resolve(reasonOf());
  return new Promise((resolve) => {
    const timer = Number.isFinite(ms) ? setTimeout(finish, ms, "elapsed" as const) : undefined;
    const onAbort = (): void => finish(reasonOf());
    signal.addEventListener("abort", onAbort, { once: true });
    function finish(outcome: "elapsed" | "aborted" | "closed"): void {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      resolve(outcome);
    }
  });
}
