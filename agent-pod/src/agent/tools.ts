import type { ChatCompletionFunctionTool } from "openai/resources/chat/completions";
import { z } from "zod";
import { BrowserAction, type BrowserActionName } from "../browser/actions.js";
import { outputSchemaForTool, type JsonSchema } from "./output-schema.js";

export const DONE_TOOL = "done";

const ACTION_DESCRIPTIONS: Record<BrowserActionName, string> = {
  navigate: "Open a URL in the current tab.",
  click: "Click the interactive element with this index.",
  type: "Type text into the input element with this index. Secrets: write <secret>key</secret>.",
  select_option: "Choose an option of the <select> element with this index.",
  press_keys: "Press a key or key combination on the focused element (e.g. Enter).",
  scroll: "Scroll the page (or the element with this index) up or down by viewport heights.",
  go_back: "Go back to the previous page in the current tab.",
  switch_tab: "Make the tab with this index the active one.",
  close_tab: "Close the tab with this index.",
  wait: "Wait for the page to settle, in seconds.",
  read_page: "Read the visible text of the whole current page; the text comes back as this call's result.",
};

export type ToolCallRequest =
  | { kind: "action"; action: BrowserAction }
  | { kind: "done"; success: boolean; output: unknown; text: string | null }
  | { kind: "invalid"; error: string };

/** One function tool per browser action (the tool name is the action name), plus done. */
export function buildTools(outputSchema: JsonSchema | null): ChatCompletionFunctionTool[] {
  const actions = BrowserAction.options.map((option): ChatCompletionFunctionTool => {
    const name = option.shape.name.value;
    return {
      type: "function",
      function: { name, description: ACTION_DESCRIPTIONS[name], parameters: actionParameters(option) },
    };
  });
  return [...actions, doneTool(outputSchema)];
}

function actionParameters(option: z.ZodObject): JsonSchema {
  // The input side of the schema, so fields with defaults are optional for the model.
  const schema = z.toJSONSchema(option, { io: "input" }) as JsonSchema & {
    properties?: Record<string, unknown>;
    required?: string[];
  };
  const { name: _name, ...properties } = schema.properties ?? {};
  const required = (schema.required ?? []).filter((key) => key !== "name");
  return {
    type: "object",
    properties,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
  };
}

function doneTool(outputSchema: JsonSchema | null): ChatCompletionFunctionTool {
  const output = outputSchema
    ? { ...outputSchemaForTool(outputSchema) }
    : { description: "The result of the task: any JSON value (an object, a string, ...)." };
  return {
    type: "function",
    function: {
      name: DONE_TOOL,
      description:
        "Finish the task. success=true when the task was completed, false when it cannot be. " +
        (outputSchema ? "output must match the required JSON schema." : "output holds the result."),
      parameters: {
        type: "object",
        properties: {
          success: { type: "boolean", description: "Whether the task was completed" },
          output,
          text: { type: "string", description: "A short final message for the user" },
        },
        required: ["success", "output"],
        additionalProperties: false,
      },
    },
  };
}

const DoneArguments = z.object({
  success: z.boolean(),
  output: z.unknown().optional(),
  text: z.string().optional(),
});

/** Turns one tool call of the model into a request the loop can run, or an error it can show. */
export function parseToolCall(name: string, argumentsJson: string): ToolCallRequest {
  let args: unknown;
  try {
    args = argumentsJson.trim() === "" ? {} : JSON.parse(argumentsJson);
  } catch {
    return { kind: "invalid", error: `The arguments of ${name} are not valid JSON.` };
  }
  if (args === null || typeof args !== "object" || Array.isArray(args)) {
    return { kind: "invalid", error: `The arguments of ${name} must be a JSON object.` };
  }
  if (name === DONE_TOOL) {
    const done = DoneArguments.safeParse(args);
    if (!done.success) return { kind: "invalid", error: `Invalid done arguments: ${z.prettifyError(done.error)}` };
    return { kind: "done", success: done.data.success, output: done.data.output ?? null, text: done.data.text ?? null };
  }
  const action = BrowserAction.safeParse({ ...args, name });
  if (!action.success) {
    const known = BrowserAction.options.some((option) => option.shape.name.value === name);
    return {
      kind: "invalid",
      error: known ? `Invalid arguments for ${name}: ${z.prettifyError(action.error)}` : `There is no tool named ${name}.`,
    };
  }
  return { kind: "action", action: action.data };
}
