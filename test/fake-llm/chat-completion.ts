import type { ChatRequest } from "./chat-request.js";
import type { TextReply, ToolCallsReply, Usage } from "./script-types.js";

/** Deterministic token count, so cost assertions can be computed from the records. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

export interface ChatCompletionBody {
  id: string;
  object: "chat.completion";
  created: number;
  model: string;
  choices: Array<{
    index: 0;
    message: AssistantMessage;
    finish_reason: "tool_calls" | "stop";
    logprobs: null;
  }>;
  usage: Usage & { total_tokens: number };
}

interface AssistantMessage {
  role: "assistant";
  content: string | null;
  refusal: null;
  tool_calls?: Array<{ id: string; type: "function"; function: { name: string; arguments: string } }>;
}

/**
 * prompt_tokens = estimateTokens(JSON.stringify(request.messages)),
 * completion_tokens = estimateTokens(JSON.stringify(answer message)), unless the reply overrides usage.
 */
export function chatCompletion(
  request: ChatRequest,
  reply: ToolCallsReply | TextReply,
  seq: number,
): ChatCompletionBody {
  const message: AssistantMessage =
    reply.kind === "text"
      ? { role: "assistant", content: reply.content, refusal: null }
      : {
          role: "assistant",
          content: reply.content ?? null,
          refusal: null,
          tool_calls: reply.calls.map((call, i) => ({
            id: `call_${seq}_${i}`,
            type: "function",
            function: { name: call.name, arguments: JSON.stringify(call.arguments) },
          })),
        };
  const usage = reply.usage ?? {
    prompt_tokens: estimateTokens(JSON.stringify(request.messages)),
    completion_tokens: estimateTokens(JSON.stringify(message)),
  };
  return {
    id: `chatcmpl-fake-${seq}`,
    object: "chat.completion",
    created: 1_700_000_000,
    model: request.model,
    choices: [
      {
        index: 0,
        message,
        finish_reason: reply.kind === "text" ? "stop" : "tool_calls",
        logprobs: null,
      },
    ],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  };
}

export function openAiError(message: string, type: string, code: string | null = null): unknown {
  return { error: { message, type, param: null, code } };
}
