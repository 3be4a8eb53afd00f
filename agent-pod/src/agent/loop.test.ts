import type { WorkItem } from "@browser-agents/protocol";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  echoSecretScript,
  hangingScript,
  httpErrorScript,
  invalidOutputScript,
  neverDoneScript,
  repeatFailingClickScript,
  secretLoginScript,
  sequenceScript,
  startFakeLlm,
  type FakeLlm,
} from "../../../test/fake-llm/index.js";
import { SITE_PASSWORD, startTestSite, type TestSite } from "../../../test/site/index.js";
import { BrowserSession } from "../browser/index.js";
import type { AgentEventDraft } from "../report/event-reporter.js";
import { runTask, type RunTaskOptions, type StepFinished } from "./loop.js";
import { SessionFailure, type TaskOutcome } from "./task-outcome.js";

const logger = pino({ level: "silent" });
let site: TestSite;
let llm: FakeLlm;
let browser: BrowserSession;

beforeAll(async () => {
  site = await startTestSite();
  llm = await startFakeLlm({ scripts: [], apiKey: "test-key" });
  browser = await BrowserSession.launch({
    chromiumPath: "/usr/bin/chromium",
    extraFlags: [],
    devtoolsPort: 0,
    devtoolsAddress: "127.0.0.1",
    storageState: null,
    logger,
  });
}, 30_000);

afterAll(async () => {
  await browser?.close();
  await llm?.close();
  await site?.close();
});

function workItem(task: string, overrides: Partial<WorkItem> = {}): WorkItem {
  return {
    taskNumber: 1,
    task,
    model: {
      name: "fake",
      providerModel: "fake-model",
      baseUrl: llm.baseUrl,
      apiKey: "test-key",
      reasoningEffort: "none",
      inputPricePerMillionUsd: "1",
      outputPricePerMillionUsd: "2",
    },
    outputSchema: null,
    sensitiveData: null,
    systemPromptExtension: null,
    maxCostUsd: null,
    spentCostUsd: "0",
    maxSteps: 12,
    keepAlive: true,
    ...overrides,
  };
}

interface Run {
  outcome: TaskOutcome;
  events: AgentEventDraft[];
  steps: StepFinished[];
}

async function run(work: WorkItem, extra: Partial<RunTaskOptions> = {}): Promise<Run> {
  const events: AgentEventDraft[] = [];
  const steps: StepFinished[] = [];
  const outcome = await runTask({
    work,
    browser,
    signal: new AbortController().signal,
    onEvent: (event) => events.push(event),
    onStepFinish: (step) => steps.push(step),
    logger,
    settings: { modelMaxRetries: 0 },
    ...extra,
  });
  return { outcome, events, steps };
}

function messages(events: AgentEventDraft[], type?: string): Array<Extract<AgentEventDraft, { kind: "message" }>> {
  return events.flatMap((event) => (event.kind === "message" && (type === undefined || event.type === type) ? [event] : []));
}

function requestsFor(marker: string) {
  return llm.chatRequests().filter((request) => request.rawBody.includes(marker));
}

describe("runTask", () => {
  it("logs in with a secret the model only knows as a placeholder, and returns the output", async () => {
    llm.addScript(secretLoginScript({ match: /\[login\]/, siteUrl: site.url }));
    const { outcome, events, steps } = await run(
      workItem("Log in and report the plan [login]", {
        sensitiveData: { password: SITE_PASSWORD },
        outputSchema: {
          $schema: "https://json-schema.org/draft/2020-12/schema",
          type: "object",
          properties: { plan: { type: "string" }, credits: { type: "integer" } },
          required: ["plan", "credits"],
          additionalProperties: false,
        },
      }),
    );

    expect(outcome).toMatchObject({ isTaskSuccessful: true, failureKind: null, output: { plan: "Pro", credits: 42 }, steps: 6 });
    expect(llm.sawText(SITE_PASSWORD)).toBe(false);
    expect(JSON.stringify(events)).not.toContain(SITE_PASSWORD);
    const firstRequest = requestsFor("[login]")[0]?.rawBody ?? "";
    expect(firstRequest).toContain("<secret>password</secret>");
    expect(firstRequest).not.toContain("reasoning_effort");

    const actions = messages(events, "browser_action").map((message) => message.summary);
    expect(actions).toHaveLength(5);
    expect(actions[0]).toBe(`Navigating to ${site.url}/login`);
    expect(actions[1]).toMatch(/^Typing "alice" into element #\d+: User name$/);
    expect(actions[2]).toMatch(/^Typing "<secret>password<\/secret>" into element #\d+: Password$/);
    expect(actions[3]).toMatch(/^Clicking element #\d+: Sign in$/);
    expect(actions[4]).toBe("Reading the page");
    expect(messages(events, "browser_action_result")).toHaveLength(5);
    const completion = messages(events, "completion");
    expect(completion).toHaveLength(1);
    expect(JSON.parse(completion[0]?.data ?? "")).toEqual({ plan: "Pro", credits: 42 });

    expect(steps.map((step) => step.stepNumber)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(events.filter((event) => event.kind === "step")).toHaveLength(6);
    const usage = events.flatMap((event) => (event.kind === "usage" ? [event] : []));
    expect(usage).toHaveLength(6);
    const total = llm.totalUsage();
    expect(usage.reduce((sum, event) => sum + event.inputTokens, 0)).toBe(total.prompt_tokens);
    expect(outcome.costUsd).toBe(String((total.prompt_tokens + 2 * total.completion_tokens) / 1_000_000));
  }, 60_000);

  it("shows the model page text with secret values replaced by their placeholders", async () => {
    llm.addScript(echoSecretScript({ match: /\[echo\]/, siteUrl: site.url }));
    const { outcome } = await run(workItem("Echo the password [echo]", { sensitiveData: { password: SITE_PASSWORD } }));
    expect(outcome).toMatchObject({ isTaskSuccessful: true, output: { echoed: "<secret>password</secret>" } });
    expect(llm.sawText(SITE_PASSWORD)).toBe(false);
  }, 30_000);

  it("runs several calls of one reply, and stops the batch when the page changes under it", async () => {
    llm.addScript(
      sequenceScript({
        name: "batch",
        match: /\[batch\]/,
        steps: [
          (ctx) => ctx.call("navigate", { url: `${site.url}/login` }),
          (ctx) => [
            ctx.call("type", { index: ctx.findElement(/name="username"/), text: "alice" }),
            ctx.call("type", { index: ctx.findElement(/type="password"/), text: "<secret>password</secret>" }),
            ctx.call("click", { index: ctx.findElement(/>Sign in<\/button>/) }),
            ctx.call("click", { index: ctx.findElement(/>Sign in<\/button>/) }),
          ],
          (ctx) => ctx.done({ success: true, output: { url: ctx.pageUrl(), results: ctx.lastToolResults().map((r) => r.content) } }),
        ],
      }),
    );
    const { outcome } = await run(workItem("Log in quickly [batch]", { sensitiveData: { password: SITE_PASSWORD } }));
    const output = outcome.output as { url: string; results: string[] };
    expect(output.url).toBe(`${site.url}/account`);
    expect(output.results).toHaveLength(4);
    expect(output.results.slice(0, 3).every((result) => !result.startsWith("Not executed"))).toBe(true);
    expect(output.results[3]).toMatch(/^Not executed: the page changed to .*\/account/);
  }, 30_000);

  it("sends schema errors back to the model twice, then ends with output_schema_mismatch", async () => {
    llm.addScript(invalidOutputScript({ match: /\[bad-output\]/ }));
    const { outcome, events } = await run(
      workItem("Extract things [bad-output]", {
        outputSchema: { type: "object", properties: { title: { type: "string" } }, required: ["title"], additionalProperties: false },
      }),
    );
    expect(outcome).toMatchObject({ isTaskSuccessful: false, failureKind: "output_schema_mismatch", output: null, steps: 3 });
    const requests = requestsFor("[bad-output]");
    expect(requests).toHaveLength(3);
    expect(requests[1]?.rawBody).toContain("must have required property 'title'");
    expect(messages(events, "completion")[0]?.data).toBe("null");
  }, 30_000);

  it("ends with agent_gave_up when the model says it cannot do the task", async () => {
    llm.addScript(
      sequenceScript({
        name: "give-up",
        match: /\[give-up\]/,
        steps: [(ctx) => ({ ...ctx.done({ success: false, output: null, text: "The site is down" }), content: "Nothing works here." })],
      }),
    );
    const { outcome, events } = await run(workItem("Do the impossible [give-up]"));
    expect(outcome).toMatchObject({ isTaskSuccessful: false, failureKind: "agent_gave_up", output: null });
    expect(messages(events, "planning").map((message) => message.data)).toEqual(["Nothing works here."]);
    expect(messages(events, "completion")[0]?.summary).toBe("Gave up: The site is down");
  }, 30_000);

  it("stops at maxSteps with max_steps_reached", async () => {
    llm.addScript(neverDoneScript({ match: /\[endless\]/ }));
    const { outcome } = await run(workItem("Scroll forever [endless]", { maxSteps: 3 }));
    expect(outcome).toMatchObject({ isTaskSuccessful: false, failureKind: "max_steps_reached", steps: 3 });
    expect(requestsFor("[endless]")).toHaveLength(3);
    expect(requestsFor("[endless]")[2]?.rawBody).toContain("This is your last step");
  }, 30_000);

  it("warns the model about a repeated failing action, then gives up", async () => {
    llm.addScript(repeatFailingClickScript({ match: /\[stuck\]/ }));
    const { outcome, events } = await run(workItem("Click the missing button [stuck]"), {
      settings: { modelMaxRetries: 0, loopDetector: { warnAfter: 2, giveUpAfter: 3, window: 20 } },
    });
    expect(outcome).toMatchObject({ isTaskSuccessful: false, failureKind: "agent_gave_up", steps: 3 });
    expect(requestsFor("[stuck]")[2]?.rawBody).toContain("has failed repeatedly");
    expect(messages(events, "browser_action_error")).toHaveLength(3);
  }, 30_000);

  it("gives up after too many steps in a row without a successful action", async () => {
    llm.addScript({ name: "flailing", match: /\[flailing\]/, respond: (ctx) => ctx.call("click", { index: 9000 + ctx.turn }) });
    const { outcome } = await run(workItem("Click around [flailing]"), { settings: { modelMaxRetries: 0, maxConsecutiveFailures: 3 } });
    expect(outcome).toMatchObject({ isTaskSuccessful: false, failureKind: "agent_gave_up", steps: 3 });
  }, 30_000);

  it("stops with max_cost_exceeded before a call that could overrun the budget", async () => {
    llm.addScript(neverDoneScript({ match: /\[costly\]/ }));
    const { outcome, events } = await run(workItem("Scroll at a price [costly]", { maxCostUsd: "1", spentCostUsd: "0.999999" }));
    expect(outcome).toMatchObject({ isTaskSuccessful: false, failureKind: "max_cost_exceeded", steps: 0, costUsd: "0" });
    expect(requestsFor("[costly]")).toHaveLength(0);
    expect(messages(events, "completion")).toHaveLength(1);
  }, 30_000);

  it("sends reasoning_effort when the effort is not none, and no credential when there is no key", async () => {
    const keyless = await startFakeLlm({
      scripts: [sequenceScript({ name: "effort", match: /\[effort\]/, steps: [(ctx) => ctx.done({ success: true, output: "ok" })] })],
    });
    try {
      const work = workItem("Say ok [effort]");
      const { outcome } = await run({ ...work, model: { ...work.model, baseUrl: keyless.baseUrl, apiKey: null, reasoningEffort: "low" } });
      expect(outcome).toMatchObject({ isTaskSuccessful: true, output: "ok" });
      const request = keyless.chatRequests()[0];
      expect(request?.body).toMatchObject({ model: "fake-model", reasoning_effort: "low", tool_choice: "required" });
      expect(request?.headers.authorization).toBeUndefined();
    } finally {
      await keyless.close();
    }
  }, 30_000);

  it("fails the session with llm_error and the status when the provider refuses the key", async () => {
    const work = workItem("Anything [wrong-key]");
    const attempt = run({ ...work, model: { ...work.model, apiKey: "wrong-key" } });
    await expect(attempt).rejects.toBeInstanceOf(SessionFailure);
    await expect(attempt).rejects.toMatchObject({ failureKind: "llm_error", failureStatusCode: 401 });
  }, 30_000);

  it("retries a provider error a bounded number of times, then fails with llm_error", async () => {
    llm.addScript(httpErrorScript({ match: /\[overloaded\]/, status: 503 }));
    const attempt = run(workItem("Anything [overloaded]"), { settings: { modelMaxRetries: 1 } });
    await expect(attempt).rejects.toMatchObject({ failureKind: "llm_error", failureStatusCode: 503 });
    expect(requestsFor("[overloaded]")).toHaveLength(2);
  }, 30_000);

  it("stops promptly when aborted during a model call, abandoning the call", async () => {
    llm.addScript(hangingScript({ match: /\[hang\]/ }));
    const controller = new AbortController();
    const attempt = runTask({
      work: workItem("Wait forever [hang]"),
      browser,
      signal: controller.signal,
      onEvent: () => undefined,
      logger,
    });
    const request = await llm.waitForRequest((r) => r.rawBody.includes("[hang]"));
    controller.abort(new Error("stopped by test"));
    await expect(attempt).rejects.toThrow("stopped by test");
    await llm.waitForRequest((r) => r.seq === request.seq && r.outcome === "aborted");
  }, 30_000);
});
