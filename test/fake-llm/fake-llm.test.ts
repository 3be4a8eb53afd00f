import OpenAI from "openai";
import type { ChatCompletionMessageParam, ChatCompletionTool } from "openai/resources/chat/completions";
import { afterEach, describe, expect, it } from "vitest";
import {
  type FakeLlm,
  type FakeLlmScript,
  call,
  echoSecretScript,
  invalidOutputScript,
  loginScript,
  neverDoneScript,
  repeatFailingClickScript,
  secretLoginScript,
  startFakeLlm,
} from "./index.js";

const TOOL_NAMES = ["navigate", "click", "type", "scroll", "read_page", "wait", "done"];
const TOOLS: ChatCompletionTool[] = TOOL_NAMES.map((name) => ({
  type: "function",
  function: { name, parameters: { type: "object", properties: {} } },
}));

interface FakePage {
  url: string;
  elements: string[];
  text: string;
}

function pageState(page: FakePage): string {
  return [
    `Current URL: ${page.url}`,
    "Title: Test",
    `Tabs: [0] Test (${page.url}) (active) | [1] Help page (http://127.0.0.1:9/tab-target)`,
    "Scroll: 0 px above, 0 px below",
    "Interactive elements:",
    ...page.elements.map((html, i) => `[${i}]${html}`),
  ].join("\n");
}

const BLANK: FakePage = { url: "about:blank", elements: [], text: "" };
const SITE = "http://127.0.0.1:9";
const LOGIN: FakePage = {
  url: `${SITE}/login`,
  elements: [
    '<a href="/">Home</a>',
    '<input type="text" name="username" placeholder="User name">',
    '<input type="password" name="password" placeholder="Password">',
    '<button type="submit">Sign in</button>',
  ],
  text: "Sign in",
};
const ACCOUNT: FakePage = {
  url: `${SITE}/account`,
  elements: ['<a href="/products">Products</a>'],
  text: "Signed in as alice\nPlan: Pro\nCredits: 42",
};

let fake: FakeLlm | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function start(scripts: FakeLlmScript[], apiKey?: string): Promise<{ fake: FakeLlm; client: OpenAI }> {
  fake = await startFakeLlm(apiKey === undefined ? { scripts } : { scripts, apiKey });
  return { fake, client: new OpenAI({ baseURL: fake.baseUrl, apiKey: apiKey ?? "test-key", maxRetries: 0 }) };
}

function ask(client: OpenAI, messages: ChatCompletionMessageParam[], signal?: AbortSignal) {
  return client.chat.completions.create({ model: "fake-model", messages, tools: TOOLS }, { signal });
}

function firstTurn(task: string, page: FakePage = BLANK): ChatCompletionMessageParam[] {
  return [
    { role: "system", content: "You are a browser agent." },
    { role: "user", content: `Task: ${task}\n\n${pageState(page)}` },
  ];
}

interface Call {
  name: string;
  args: Record<string, unknown>;
}

/** A tiny stand-in for the agent loop and the browser, enough to run the building blocks. */
async function drive(
  client: OpenAI,
  task: string,
  browse: (call: Call, page: FakePage) => FakePage,
  maxTurns = 10,
): Promise<{ calls: Call[]; done?: Record<string, unknown> }> {
  let page = BLANK;
  const messages = firstTurn(task, page);
  const calls: Call[] = [];
  for (let turn = 0; turn < maxTurns; turn++) {
    const message = (await ask(client, messages)).choices[0]?.message;
    if (!message) throw new Error("no choice");
    messages.push(message);
    for (const toolCall of message.tool_calls ?? []) {
      if (toolCall.type !== "function") continue;
      const made = { name: toolCall.function.name, args: JSON.parse(toolCall.function.arguments) as Record<string, unknown> };
      if (made.name === "done") return { calls, done: made.args };
      calls.push(made);
      page = browse(made, page);
      const content = made.name === "read_page" ? page.text : `${made.name} ok`;
      messages.push({ role: "tool", tool_call_id: toolCall.id, content });
    }
    messages.push({ role: "user", content: pageState(page) });
  }
  return { calls };
}

function loginBrowser(expectedPassword: string) {
  const typed = new Map<unknown, unknown>();
  return (made: Call, page: FakePage): FakePage => {
    if (made.name === "navigate") return made.args.url === `${SITE}/login` ? LOGIN : BLANK;
    if (made.name === "type") typed.set(made.args.index, made.args.text);
    if (made.name === "click" && made.args.index === 3) {
      return typed.get(1) === "alice" && typed.get(2) === expectedPassword ? ACCOUNT : LOGIN;
    }
    return page;
  };
}

describe("fake LLM over the real openai client", () => {
  it("answers with the tool calls of the script whose match fits the task", async () => {
    const { fake, client } = await start([
      { name: "other", match: /book a table/, respond: (ctx) => ctx.call("wait", { seconds: 1 }) },
      { name: "search", match: /find shoes/, respond: (ctx) => ctx.call("navigate", { url: "http://127.0.0.1:9/shoes" }) },
    ]);

    const completion = await ask(client, firstTurn("please find shoes"));

    const toolCall = completion.choices[0]?.message.tool_calls?.[0];
    expect(toolCall?.type === "function" && toolCall.function.name).toBe("navigate");
    expect(toolCall?.type === "function" && JSON.parse(toolCall.function.arguments)).toEqual({ url: "http://127.0.0.1:9/shoes" });
    expect(completion.choices[0]?.finish_reason).toBe("tool_calls");
    const recorded = fake.requests[0];
    expect(recorded?.path).toBe("/v1/chat/completions");
    expect(recorded?.headers.authorization).toBe("Bearer test-key");
    expect(recorded?.scriptName).toBe("search");
    expect(recorded?.chat?.messages[1]?.content).toContain("please find shoes");
  });

  it("counts turns from the assistant messages and merges several calls into one answer", async () => {
    const { fake, client } = await start([
      {
        name: "turns",
        match: /count/,
        respond: (ctx) => [ctx.call("wait", { seconds: ctx.turn + 1 }), ctx.call("read_page")],
      },
    ]);
    const messages = firstTurn("count my turns");
    const first = (await ask(client, messages)).choices[0]?.message;
    if (!first) throw new Error("no answer");
    messages.push(first, ...(first.tool_calls ?? []).map((c) => ({ role: "tool" as const, tool_call_id: c.id, content: "ok" })));
    const second = (await ask(client, messages)).choices[0]?.message;

    const names = (second?.tool_calls ?? []).map((c) => (c.type === "function" ? c.function.name : ""));
    expect(names).toEqual(["wait", "read_page"]);
    const waitCall = second?.tool_calls?.[0];
    expect(waitCall?.type === "function" && JSON.parse(waitCall.function.arguments)).toEqual({ seconds: 2 });
    expect(fake.requests.map((r) => r.turn)).toEqual([0, 1]);
  });

  it("parses the latest page state and the tool results after the last assistant message", async () => {
    const seen: unknown[] = [];
    const { client } = await start([
      {
        name: "inspect",
        match: /inspect/,
        respond: (ctx) => {
          seen.push(ctx.pageUrl(), ctx.findElement(/Sign in/), ctx.tabs().map((t) => t.active), ctx.lastToolResults());
          return ctx.call("click", { index: ctx.findElement(/type="password"/) });
        },
      },
    ]);
    const messages: ChatCompletionMessageParam[] = [
      ...firstTurn("inspect the page"),
      { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "read_page", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "c1", content: "page text here" },
      { role: "user", content: pageState(LOGIN) },
    ];

    const answer = (await ask(client, messages)).choices[0]?.message.tool_calls?.[0];

    expect(answer?.type === "function" && JSON.parse(answer.function.arguments)).toEqual({ index: 2 });
    expect(seen).toEqual([
      `${SITE}/login`,
      3,
      [true, false],
      [{ toolCallId: "c1", name: "read_page", content: "page text here" }],
    ]);
  });

  it("fails the call with a readable list of elements when findElement finds nothing", async () => {
    const { fake, client } = await start([
      { name: "missing", match: /missing/, respond: (ctx) => ctx.call("click", { index: ctx.findElement(/Checkout/) }) },
    ]);

    const failure = await ask(client, firstTurn("missing button", LOGIN)).catch((e: unknown) => e);

    expect(failure).toBeInstanceOf(OpenAI.BadRequestError);
    expect(String((failure as Error).message)).toContain('[3]<button type="submit">Sign in</button>');
    expect(fake.requests[0]?.error).toMatch(/no element matches \/Checkout\//);
  });

  it("refuses tool calls the request does not offer, unknown tasks and streaming", async () => {
    const { client } = await start([
      { name: "rogue", match: /rogue/, respond: (ctx) => ctx.call("delete_everything") },
    ]);

    await expect(ask(client, firstTurn("rogue tool"))).rejects.toThrow(/does not offer/);
    await expect(ask(client, firstTurn("nobody scripted this"))).rejects.toThrow(/no fake LLM script matches/);
    await expect(
      client.chat.completions.create({ model: "fake-model", messages: firstTurn("rogue tool"), stream: true }),
    ).rejects.toBeInstanceOf(OpenAI.BadRequestError);
  });

  it("answers with the HTTP error a script returns", async () => {
    const { client } = await start([
      { name: "denied", match: /denied/, respond: (ctx) => ctx.httpError(401, { error: { message: "bad key" } }) },
    ]);

    const failure = await ask(client, firstTurn("access denied")).catch((e: unknown) => e);

    expect(failure).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((failure as InstanceType<typeof OpenAI.AuthenticationError>).status).toBe(401);
  });

  it("lets a script fail the first attempt of a turn and succeed on the client's retry", async () => {
    const { fake } = await start([
      {
        name: "flaky",
        match: /flaky/,
        respond: (ctx) => (ctx.attempt === 0 ? ctx.httpError(503) : ctx.call("read_page")),
      },
    ]);
    const retrying = new OpenAI({ baseURL: fake.baseUrl, apiKey: "k", maxRetries: 1 });

    const completion = await ask(retrying, firstTurn("flaky model"));

    expect(completion.choices[0]?.message.tool_calls).toHaveLength(1);
    expect(fake.requests.map((r) => [r.attempt, r.response?.status])).toEqual([[0, 503], [1, 200]]);
  });

  it("answers after a delay", async () => {
    const { client } = await start([
      { name: "slow", match: /slow/, respond: (ctx) => ctx.delay(20, call("read_page")) },
    ]);

    const completion = await ask(client, firstTurn("slow model"));

    expect(completion.choices[0]?.message.tool_calls).toHaveLength(1);
  });

  it("ends a pending delay when the client aborts", async () => {
    const { fake, client } = await start([{ name: "hang", match: /hang/, respond: (ctx) => ctx.hang() }]);
    const controller = new AbortController();
    const pending = ask(client, firstTurn("hang forever"), controller.signal).catch((e: unknown) => e);
    await fake.waitForRequest((r) => r.scriptName === "hang");

    controller.abort();

    expect(await pending).toBeInstanceOf(OpenAI.APIUserAbortError);
    const recorded = await fake.waitForRequest((r) => r.outcome !== "pending");
    expect(recorded.outcome).toBe("aborted");
  });

  it("records when each request arrived and, once answered, when it was answered", async () => {
    const { fake, client } = await start([
      { name: "hang", match: /hang/, respond: (ctx) => ctx.hang() },
      { name: "quick", match: /quick/, respond: (ctx) => ctx.call("read_page") },
    ]);
    const before = Date.now();
    void ask(client, firstTurn("hang forever")).catch(() => undefined);
    const pending = await fake.waitForRequest((r) => r.scriptName === "hang");
    await ask(client, firstTurn("quick answer"));

    const answered = fake.requests.find((r) => r.scriptName === "quick");
    expect(pending.receivedAt).toBeGreaterThanOrEqual(before);
    expect(pending.answeredAt).toBeUndefined();
    expect(answered?.receivedAt).toBeGreaterThanOrEqual(pending.receivedAt);
    expect(answered?.answeredAt).toBeGreaterThanOrEqual(answered?.receivedAt ?? Infinity);
  });

  it("ends a pending delay when the server closes", async () => {
    const { fake, client } = await start([{ name: "hang", match: /hang/, respond: (ctx) => ctx.hang() }]);
    const pending = ask(client, firstTurn("hang forever")).catch((e: unknown) => e);
    await fake.waitForRequest((r) => r.scriptName === "hang");

    await fake.close();

    expect(await pending).toBeInstanceOf(OpenAI.APIConnectionError);
    expect(fake.requests[0]?.outcome).toBe("closed");
  });

  it("reports deterministic usage that grows with the prompt", async () => {
    const { fake, client } = await start([{ name: "any", match: /usage/, respond: (ctx) => ctx.call("read_page") }]);

    const short1 = await ask(client, firstTurn("usage"));
    const short2 = await ask(client, firstTurn("usage"));
    const long = await ask(client, firstTurn(`usage ${"x".repeat(400)}`));

    expect(short2.usage).toEqual(short1.usage);
    expect(long.usage?.prompt_tokens).toBe((short1.usage?.prompt_tokens ?? 0) + 100);
    expect(fake.totalUsage()).toEqual({
      prompt_tokens: [short1, short2, long].reduce((sum, c) => sum + (c.usage?.prompt_tokens ?? 0), 0),
      completion_tokens: [short1, short2, long].reduce((sum, c) => sum + (c.usage?.completion_tokens ?? 0), 0),
    });
  });

  it("lists models and enforces the API key when one is configured", async () => {
    const { fake, client } = await start([], "right-key");

    const models = await client.models.list();
    const wrong = new OpenAI({ baseURL: fake.baseUrl, apiKey: "wrong-key", maxRetries: 0 });

    expect(models.data.map((m) => m.id)).toEqual(["fake-model"]);
    await expect(wrong.models.list()).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
  });

  it("can tell whether a text ever reached it", async () => {
    const { fake, client } = await start([{ name: "any", match: /secret test/, respond: (ctx) => ctx.call("read_page") }]);

    await ask(client, firstTurn('secret test with "quoted" value hunter2'));

    expect(fake.sawText('"quoted" value hunter2')).toBe(true);
    expect(fake.sawText("s3cret-pass-123")).toBe(false);
  });
});

describe("ready-made scripts", () => {
  it("loginScript logs in and returns the account as structured output", async () => {
    const { client } = await start([loginScript({ match: /log in/, siteUrl: SITE })]);

    const run = await drive(client, "log in and report the plan", loginBrowser("s3cret-pass-123"));

    expect(run.calls.map((c) => c.name)).toEqual(["navigate", "type", "type", "click", "read_page"]);
    expect(run.done).toEqual({ success: true, output: { plan: "Pro", credits: 42 }, text: "Plan Pro" });
  });

  it("loginScript gives up with success false when the account page never shows", async () => {
    const { client } = await start([loginScript({ match: /log in/, siteUrl: SITE })]);

    const run = await drive(client, "log in and report the plan", loginBrowser("another password"));

    expect(run.done).toMatchObject({ success: false, output: null });
  });

  it("secretLoginScript types the secret placeholder, never a password", async () => {
    const { fake, client } = await start([secretLoginScript({ match: /log in/, siteUrl: SITE })]);

    const run = await drive(client, "log in with the secret", loginBrowser("<secret>password</secret>"));

    expect(run.calls[2]).toEqual({ name: "type", args: { index: 2, text: "<secret>password</secret>", clear: true } });
    expect(run.done?.success).toBe(true);
    expect(fake.sawText("s3cret-pass-123")).toBe(false);
  });

  it("echoSecretScript types the placeholder into the echo field and reports what read_page showed", async () => {
    const { client } = await start([echoSecretScript({ match: /echo/, siteUrl: SITE })]);
    const echo: FakePage = { url: `${SITE}/echo`, elements: ['<input type="text" name="message">'], text: "" };

    const run = await drive(client, "echo the secret", (made, page) => {
      if (made.name === "navigate") return echo;
      if (made.name === "type") return { ...echo, text: `You typed: ${String(made.args.text)}` };
      return page;
    });

    expect(run.calls[1]).toEqual({ name: "type", args: { index: 0, text: "<secret>password</secret>", clear: true } });
    expect(run.done).toEqual({ success: true, output: { echoed: "<secret>password</secret>" } });
  });

  it("invalidOutputScript, neverDoneScript and repeatFailingClickScript behave the same every turn", async () => {
    const { client } = await start([
      invalidOutputScript({ match: /invalid/ }),
      neverDoneScript({ match: /endless/ }),
      repeatFailingClickScript({ match: /stuck/ }),
    ]);

    const invalid = await drive(client, "invalid output", (_c, page) => page);
    const endless = await drive(client, "endless task", (_c, page) => page, 4);
    const stuck = await drive(client, "stuck clicking", (_c, page) => page, 3);

    expect(invalid.done).toEqual({ success: true, output: { unexpected: "shape" } });
    expect(endless.done).toBeUndefined();
    expect(endless.calls.map((c) => c.args.direction)).toEqual(["down", "up", "down", "up"]);
    expect(stuck.calls).toEqual(Array(3).fill({ name: "click", args: { index: 9999 } }));
  });
});
