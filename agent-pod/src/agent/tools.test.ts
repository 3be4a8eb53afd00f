import { describe, expect, it } from "vitest";
import { BrowserAction } from "../browser/actions.js";
import { DONE_TOOL, buildTools, parseToolCall } from "./tools.js";

describe("buildTools", () => {
  const tools = buildTools(null);
  const byName = new Map(tools.map((tool) => [tool.function.name, tool.function]));

  it("offers one tool per browser action plus done", () => {
    const actionNames = BrowserAction.options.map((option) => option.shape.name.value);
    expect([...byName.keys()]).toEqual([...actionNames, DONE_TOOL]);
    for (const tool of tools) expect(tool.function.description).toBeTruthy();
  });

  it("describes arguments as JSON Schema without the name discriminator", () => {
    expect(byName.get("click")?.parameters).toEqual({
      type: "object",
      properties: { index: expect.objectContaining({ type: "integer", minimum: 0 }) },
      required: ["index"],
      additionalProperties: false,
    });
    const typeParams = byName.get("type")?.parameters as { required: string[]; properties: Record<string, unknown> };
    expect(typeParams.required).toEqual(["index", "text"]);
    expect(typeParams.properties.clear).toMatchObject({ type: "boolean", default: true });
    expect(byName.get("go_back")?.parameters).toEqual({ type: "object", properties: {}, additionalProperties: false });
  });

  it("makes the output schema the done tool's output parameter", () => {
    const outputSchema = {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: { plan: { type: "string" } },
      required: ["plan"],
      additionalProperties: false,
    };
    const done = buildTools(outputSchema).find((tool) => tool.function.name === DONE_TOOL);
    expect(done?.function.parameters).toMatchObject({
      required: ["success", "output"],
      properties: {
        success: { type: "boolean" },
        output: { type: "object", properties: { plan: { type: "string" } }, required: ["plan"], additionalProperties: false },
        text: { type: "string" },
      },
    });
    expect(JSON.stringify(done?.function.parameters)).not.toContain("$schema");
  });
});

describe("parseToolCall", () => {
  it("parses an action and applies its defaults", () => {
    expect(parseToolCall("type", '{"index":2,"text":"hi"}')).toEqual({
      kind: "action",
      action: { name: "type", index: 2, text: "hi", clear: true },
    });
    expect(parseToolCall("go_back", "")).toEqual({ kind: "action", action: { name: "go_back" } });
  });

  it("parses done with any JSON output", () => {
    expect(parseToolCall("done", '{"success":true,"output":[1,"a"],"text":"ok"}')).toEqual({
      kind: "done",
      success: true,
      output: [1, "a"],
      text: "ok",
    });
    expect(parseToolCall("done", '{"success":false}')).toEqual({ kind: "done", success: false, output: null, text: null });
  });

  it("explains what is wrong with a bad call", () => {
    expect(parseToolCall("click", "{index: 1}")).toEqual({ kind: "invalid", error: expect.stringContaining("not valid JSON") });
    expect(parseToolCall("click", '{"index":-1}')).toEqual({ kind: "invalid", error: expect.stringContaining("Invalid arguments for click") });
    expect(parseToolCall("fly", "{}")).toEqual({ kind: "invalid", error: "There is no tool named fly." });
    expect(parseToolCall("done", '{"output":1}')).toEqual({ kind: "invalid", error: expect.stringContaining("success") });
  });
});
