import { describe, expect, it } from "vitest";
import { buildConversation, type StepRecord } from "./conversation.js";

function step(stepNumber: number, content?: string): StepRecord {
  const id = `call_${stepNumber}`;
  return {
    stepNumber,
    location: `http://127.0.0.1/page${stepNumber} (Page ${stepNumber})`,
    thoughts: null,
    toolCalls: [{ id, name: "read_page", arguments: "{}" }],
    outcomes: [{ toolCallId: id, result: "Read the page", ...(content === undefined ? {} : { content }) }],
    digest: [`read_page {} -> Read the page ${stepNumber}`],
  };
}

const base = { systemPrompt: "SYSTEM", taskMessage: "Your task:\nfind it", currentMessage: "Current URL: http://127.0.0.1/now", maxDigestLines: 100 };

describe("buildConversation", () => {
  it("opens with the system prompt and the task, and ends with the current page", () => {
    const messages = buildConversation({ ...base, steps: [], keepSteps: 5 });
    expect(messages).toEqual([
      { role: "system", content: "SYSTEM" },
      { role: "user", content: "Your task:\nfind it" },
      { role: "user", content: "Current URL: http://127.0.0.1/now" },
    ]);
  });

  it("replays recent steps as tool-call turns and shows long content only for the latest", () => {
    const messages = buildConversation({ ...base, steps: [step(1, "OLD PAGE TEXT"), step(2, "NEW PAGE TEXT")], keepSteps: 5 });
    const tools = messages.filter((message) => message.role === "tool").map((message) => message.content as string);
    expect(messages.filter((message) => message.role === "assistant")).toHaveLength(2);
    expect(tools[0]).not.toContain("OLD PAGE TEXT");
    expect(tools[0]).toContain("page text no longer shown");
    expect(tools[1]).toContain("NEW PAGE TEXT");
    expect(messages.at(-1)).toEqual({ role: "user", content: "Current URL: http://127.0.0.1/now" });
  });

  it("folds steps beyond the kept ones into one bounded digest", () => {
    const steps = Array.from({ length: 6 }, (_, i) => step(i + 1));
    const messages = buildConversation({ ...base, steps, keepSteps: 2, maxDigestLines: 4 });
    expect(messages.filter((message) => message.role === "assistant")).toHaveLength(2);
    const digest = messages[2]?.content as string;
    expect(digest).toMatch(/^Earlier steps \(compacted\):/);
    expect(digest).toContain("(4 older lines omitted)");
    expect(digest).toContain("Step 4 at http://127.0.0.1/page4");
    expect(digest).not.toContain("Step 1 at");
  });
});
