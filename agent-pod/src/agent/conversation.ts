import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import type { ModelToolCall } from "./model-client.js";

export interface ToolCallOutcome {
  toolCallId: string;
  /** What the model reads as the call's result, already redacted. */
  result: string;
  /** Long content (read_page text) shown only while the step is the latest one. */
  content?: string;
}

/** One finished step, as the model will see it in later steps. */
export interface StepRecord {
  stepNumber: number;
  /** Where the step started: "http://... (Title)". */
  location: string;
  thoughts: string | null;
  toolCalls: ModelToolCall[];
  outcomes: ToolCallOutcome[];
  /** For the compacted form: "click {"index":3} -> Clicked ..." per call. */
  digest: string[];
}

export interface ConversationInput {
  systemPrompt: string;
  /** Stays the same for the whole task, so the conversation always opens the same way. */
  taskMessage: string;
  steps: readonly StepRecord[];
  /** The current page state and any notes, already redacted. */
  currentMessage: string;
  /** Steps kept as full tool-call turns; older ones are folded into one text digest. */
  keepSteps: number;
  maxDigestLines: number;
}

/**
 * The messages of one model call: system, task, older steps as a digest, recent steps as real
 * tool-call turns (compact: only their location, calls and short results), then the current page.
 */
export function buildConversation(input: ConversationInput): ChatCompletionMessageParam[] {
  const messages: ChatCompletionMessageParam[] = [
    { role: "system", content: input.systemPrompt },
    { role: "user", content: input.taskMessage },
  ];
  const folded = input.steps.slice(0, Math.max(0, input.steps.length - input.keepSteps));
  const recent = input.steps.slice(folded.length);
  if (folded.length > 0) messages.push({ role: "user", content: digestOf(folded, input.maxDigestLines) });
  recent.forEach((step, position) => {
    const isLatest = position === recent.length - 1;
    messages.push({ role: "user", content: `[Step ${step.stepNumber}] Page: ${step.location}` });
    if (step.toolCalls.length === 0) {
      messages.push({ role: "assistant", content: step.thoughts ?? "" });
      return;
    }
    messages.push({
      role: "assistant",
      content: step.thoughts,
      tool_calls: step.toolCalls.map((call) => ({
        id: call.id,
        type: "function" as const,
        function: { name: call.name, arguments: replayableArguments(call.arguments) },
      })),
    });
    for (const outcome of step.outcomes) {
      const content =
        outcome.content === undefined
          ? outcome.result
          : isLatest
            ? `${outcome.result}\n\n${outcome.content}`
            : `${outcome.result} (page text no longer shown; call read_page again if needed)`;
      messages.push({ role: "tool", tool_call_id: outcome.toolCallId, content });
    }
  });
  messages.push({ role: "user", content: input.currentMessage });
  return messages;
}

function digestOf(steps: readonly StepRecord[], maxLines: number): string {
  const lines = steps.flatMap((step) => [`Step ${step.stepNumber} at ${step.location}:`, ...step.digest.map((line) => `  ${line}`)]);
  const kept = lines.slice(-maxLines);
  const omitted = lines.length - kept.length;
  return [
    "Earlier steps (compacted):",
    ...(omitted > 0 ? [`(${omitted} older lines omitted)`] : []),
    ...kept,
  ].join("\n");
}

/** Providers reject a replayed tool call whose arguments are not JSON. */
function replayableArguments(text: string): string {
  try {
    JSON.parse(text);
    return text;
  } catch {
    return "{}";
  }
}
