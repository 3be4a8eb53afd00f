import { z } from "zod";

const ContentPart = z.looseObject({ type: z.string(), text: z.string().optional() });

const ToolCallInMessage = z.looseObject({
  id: z.string(),
  type: z.literal("function"),
  function: z.looseObject({ name: z.string(), arguments: z.string() }),
});

export const ChatMessage = z.looseObject({
  role: z.enum(["system", "developer", "user", "assistant", "tool"]),
  content: z.union([z.string(), z.array(ContentPart), z.null()]).optional(),
  tool_calls: z.array(ToolCallInMessage).optional(),
  tool_call_id: z.string().optional(),
});
export type ChatMessage = z.infer<typeof ChatMessage>;

export const ChatRequest = z.looseObject({
  model: z.string(),
  messages: z.array(ChatMessage).min(1),
  tools: z
    .array(z.looseObject({ type: z.string(), function: z.looseObject({ name: z.string() }) }))
    .optional(),
  stream: z.boolean().nullish(),
});
export type ChatRequest = z.infer<typeof ChatRequest>;

/** The text of a message, whether its content is a string or a list of parts (images are skipped). */
export function messageText(message: ChatMessage): string {
  const content = message.content;
  if (content === undefined || content === null) return "";
  if (typeof content === "string") return content;
  return content
    .map((part) => part.text)
    .filter((text): text is string => text !== undefined)
    .join("\n");
}

export function offeredToolNames(request: ChatRequest): string[] | undefined {
  return request.tools?.map((tool) => tool.function.name);
}
