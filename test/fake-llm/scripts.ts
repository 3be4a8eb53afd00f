import { SITE_PASSWORD, SITE_USERNAME } from "../site/auth-pages.js";
import type { FakeLlmScript, ScriptContext, ScriptResult } from "./script-types.js";

type Step = (ctx: ScriptContext) => ScriptResult | Promise<ScriptResult>;

interface Matched {
  match: RegExp;
  name?: string;
}

/** Answers turn N with steps[N]; a turn past the last step is a script error (HTTP 400). */
export function sequenceScript(options: Matched & { name: string; steps: Step[] }): FakeLlmScript {
  return {
    name: options.name,
    match: options.match,
    respond: (ctx) => {
      const step = options.steps[ctx.turn];
      if (!step) throw new Error(`the sequence has ${options.steps.length} steps; no step for turn ${ctx.turn}`);
      return step(ctx);
    },
  };
}

export interface LoginScriptOptions extends Matched {
  /** Base URL of the test site, e.g. `http://127.0.0.1:40123`. */
  siteUrl: string;
  username?: string;
  password?: string;
}

/**
 * Turns: 0 navigate /login, 1 type username, 2 type password, 3 click "Sign in", 4 read_page,
 * 5 done. Success when the read_page result (or page state) shows the account:
 * `{ success: true, output: { plan: "Pro", credits: 42 } }`, else `{ success: false, output: null, text }`.
 */
export function loginScript(options: LoginScriptOptions): FakeLlmScript {
  const username = options.username ?? SITE_USERNAME;
  const password = options.password ?? SITE_PASSWORD;
  return sequenceScript({
    name: options.name ?? "login",
    match: options.match,
    steps: [
      (ctx) => ctx.call("navigate", { url: `${options.siteUrl}/login` }),
      (ctx) => ctx.call("type", { index: ctx.findElement(/name="username"/), text: username, clear: true }),
      (ctx) => ctx.call("type", { index: ctx.findElement(/type="password"/), text: password, clear: true }),
      (ctx) => ctx.call("click", { index: ctx.findElement(/>Sign in<\/button>/) }),
      (ctx) => ctx.call("read_page"),
      (ctx) => {
        const seen = `${ctx.lastToolResultsText()}\n${ctx.text()}`;
        const plan = /Plan: *(\w+)/.exec(seen)?.[1];
        const credits = /Credits: *(\d+)/.exec(seen)?.[1];
        if (plan === undefined || credits === undefined) {
          return ctx.done({ success: false, output: null, text: `account page not reached (at ${ctx.pageUrl()})` });
        }
        return ctx.done({ success: true, output: { plan, credits: Number(credits) }, text: `Plan ${plan}` });
      },
    ],
  });
}

/** loginScript typing the placeholder `<secret>password</secret>` (key configurable) as password. */
export function secretLoginScript(options: Omit<LoginScriptOptions, "password"> & { secretKey?: string }): FakeLlmScript {
  return loginScript({
    ...options,
    name: options.name ?? "secret-login",
    password: `<secret>${options.secretKey ?? "password"}</secret>`,
  });
}

/**
 * Turns: 0 navigate /echo, 1 type `<secret>password</secret>` into the echo field, 2 read_page,
 * 3 done with `output: { echoed: <the text after "You typed:" in what read_page returned> }`.
 */
export function echoSecretScript(options: Matched & { siteUrl: string; secretKey?: string }): FakeLlmScript {
  const placeholder = `<secret>${options.secretKey ?? "password"}</secret>`;
  return sequenceScript({
    name: options.name ?? "echo-secret",
    match: options.match,
    steps: [
      (ctx) => ctx.call("navigate", { url: `${options.siteUrl}/echo` }),
      (ctx) => ctx.call("type", { index: ctx.findElement(/name="message"/), text: placeholder, clear: true }),
      (ctx) => ctx.call("read_page"),
      (ctx) => {
        const echoed = /You typed: *(.*)/.exec(ctx.lastToolResultsText())?.[1]?.trim() ?? null;
        return ctx.done({ success: echoed !== null, output: { echoed } });
      },
    ],
  });
}

/** Every turn: done with an output that matches no sensible schema (default `{ unexpected: "shape" }`). */
export function invalidOutputScript(options: Matched & { output?: unknown }): FakeLlmScript {
  const output = options.output ?? { unexpected: "shape" };
  return {
    name: options.name ?? "invalid-output",
    match: options.match,
    respond: (ctx) => ctx.done({ success: true, output }),
  };
}

/** Never calls done: scrolls down on even turns and up on odd ones, to run into the step limit. */
export function neverDoneScript(options: Matched): FakeLlmScript {
  return {
    name: options.name ?? "never-done",
    match: options.match,
    respond: (ctx) => ctx.call("scroll", { direction: ctx.turn % 2 === 0 ? "down" : "up", pages: 1 }),
  };
}

/** Every turn: the same click on an element index that does not exist (default 9999). */
export function repeatFailingClickScript(options: Matched & { index?: number }): FakeLlmScript {
  const index = options.index ?? 9999;
  return {
    name: options.name ?? "repeat-failing-click",
    match: options.match,
    respond: (ctx) => ctx.call("click", { index }),
  };
}

/** Never answers: the request stays pending until the client aborts or the server closes. */
export function hangingScript(options: Matched): FakeLlmScript {
  return { name: options.name ?? "hang", match: options.match, respond: (ctx) => ctx.hang() };
}

/** Every turn: an HTTP error (default body: an OpenAI-shaped error object). */
export function httpErrorScript(options: Matched & { status: number; body?: unknown }): FakeLlmScript {
  return {
    name: options.name ?? `http-${options.status}`,
    match: options.match,
    respond: (ctx) => ctx.httpError(options.status, options.body),
  };
}
