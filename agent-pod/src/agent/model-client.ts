import type { ModelEndpoint } from "@browser-agents/protocol";
import OpenAI, { APIConnectionError, APIError, APIUserAbortError } from "openai";
import type { ChatCompletionFunctionTool, ChatCompletionMessageParam } from "openai/resources/chat/completions";
import type { TokenUsage } from "./cost.js";

export interface ModelToolCall {
  id: string;
  name: string;
  arguments: string;
}

export interface ModelReply {
  content: string | null;
  toolCalls: ModelToolCall[];
  /** Null when the provider did not report usage. */
  usage: TokenUsage | null;
}

export interface ModelClientOptions {
  /** Retries of transient failures (connection errors, 408, 409, 429, 5xx), with backoff. */
  maxRetries: number;
  /** Per attempt: long, because reasoning models may think for minutes. */
  timeoutMs: number;
}

/**
 * Why a model call failed. `sessionFatal`: the provider refuses our credentials or stays
 * unreachable, so the session cannot go on (decisions.md: the session goes to error).
 * Otherwise the provider rejected this request (e.g. 400), which ends only the task.
 */
export class ModelCallError extends Error {
  override readonly name = "ModelCallError";

  constructor(
    message: string,
    readonly statusCode: number | null,
    readonly sessionFatal: boolean,
  ) {
    super(message);
  }
}

export interface ModelClient {
  complete(messages: ChatCompletionMessageParam[], tools: ChatCompletionFunctionTool[], signal: AbortSignal): Promise<ModelReply>;
}

export function createModelClient(model: ModelEndpoint, options: ModelClientOptions): ModelClient {
  const client = new OpenAI({
    baseURL: model.baseUrl,
    // A local model server may need no key: the client insists on one, so send no header instead.
    apiKey: model.apiKey ?? "no-key",
    ...(model.apiKey === null ? { defaultHeaders: { Authorization: null } } : {}),
    // Explicit, so the library reads nothing from the environment.
    organization: null,
    project: null,
    webhookSecret: null,
    maxRetries: options.maxRetries,
    timeout: options.timeoutMs,
    logLevel: "off",
  });

  return {
    async complete(messages, tools, signal) {
      try {
        const completion = await client.chat.completions.create(
          {
            model: model.providerModel,
            messages,
            tools,
            tool_choice: "required",
            ...(model.reasoningEffort === "none" ? {} : { reasoning_effort: model.reasoningEffort }),
          },
          { signal },
        );
        const message = completion.choices[0]?.message;
        const toolCalls = (message?.tool_calls ?? []).flatMap((call) =>
          call.type === "function" ? [{ id: call.id, name: call.function.name, arguments: call.function.arguments }] : [],
        );
        const usage = completion.usage
          ? { inputTokens: completion.usage.prompt_tokens, outputTokens: completion.usage.completion_tokens }
          : null;
        return { content: message?.content ?? null, toolCalls, usage };
      } catch (error) {
        throw classify(error, signal);
      }
    },
  };
}

function classify(error: unknown, signal: AbortSignal): unknown {
  if (error instanceof APIUserAbortError || signal.aborted) return signal.reason ?? error;
  if (error instanceof APIConnectionError) {
    return new ModelCallError(`The model endpoint is unreachable: ${error.message}`, null, true);
  }
  if (error instanceof APIError && typeof error.status === "number") {
    const status = error.status;
    if (status === 401 || status === 403) {
      return new ModelCallError(`The model provider refused the credentials (HTTP ${status}): ${error.message}`, status, true);
    }
    const transient = status === 408 || status === 409 || status === 429 || status >= 500;
    const what = transient ? "kept failing" : "rejected the request";
    return new ModelCallError(`The model provider ${what} (HTTP ${status}): ${error.message}`, status, transient);
  }
  return error;
}
