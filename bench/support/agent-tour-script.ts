import { type FakeLlmScript, type ScriptContext, type ScriptResult, sequenceScript } from "../../test/fake-llm/index.js";
import { NEW_TAB_TEXT, SITE_PASSWORD, SITE_USERNAME } from "../../test/site/index.js";

export interface TourStep {
  /** What the step does, e.g. `click Sign in`; turn N of a session answers TOUR_STEPS[N]. */
  label: string;
  /** The browser action name (or done), for grouping timings. */
  action: string;
  respond(ctx: ScriptContext): ScriptResult;
}

/**
 * A tour of every page of the test site: home, login, products pagination, order form with a
 * select, same- and cross-origin iframes, shadow root, long page, echo, a link opening a new tab.
 * Every step but the first refuses to go on when the previous action failed, so a broken tour
 * ends the session (llm_error) instead of timing the wrong thing.
 */
export function tourSteps(siteUrl: string): TourStep[] {
  const go = (path: string): TourStep => ({
    label: `navigate ${path}`,
    action: "navigate",
    respond: (ctx) => ctx.call("navigate", { url: `${siteUrl}${path}` }),
  });
  const click = (what: string, pattern: RegExp): TourStep => ({
    label: `click ${what}`,
    action: "click",
    respond: (ctx) => ctx.call("click", { index: ctx.findElement(pattern) }),
  });
  const type = (what: string, pattern: RegExp, text: string): TourStep => ({
    label: `type ${what}`,
    action: "type",
    respond: (ctx) => ctx.call("type", { index: ctx.findElement(pattern), text, clear: true }),
  });
  return [
    go("/"),
    go("/login"),
    type("user name", /name="username"/, SITE_USERNAME),
    type("password", /type="password"/, SITE_PASSWORD),
    click("Sign in", />Sign in<\/button>/),
    click("Products (account page)", /href="\/products"/),
    click("Next page (to 2)", />Next page</),
    click("Next page (to 3)", />Next page</),
    go("/order"),
    { label: "select_option size Large", action: "select_option", respond: (ctx) => ctx.call("select_option", { index: ctx.findElement(/<select name="size"/), option: "Large" }) },
    click("Place order", />Place order</),
    go("/frame"),
    type("into the iframe", /name="frame-note"/, "framed"),
    click("inside the iframe", />Press inside frame</),
    go("/frame?crossOrigin=1"),
    go("/shadow"),
    type("into the shadow root", /name="shadow-note"/, "shadowed"),
    click("inside the shadow root", />Press inside shadow</),
    go("/long"),
    { label: "scroll down 2 pages", action: "scroll", respond: (ctx) => ctx.call("scroll", { direction: "down", pages: 2 }) },
    go("/echo"),
    type("into the echo field", /name="message"/, "hello bench"),
    go("/new-tab"),
    click("link opening a new tab", /Open the help page/),
    { label: "read_page (new tab)", action: "read_page", respond: (ctx) => ctx.call("read_page") },
    {
      label: "done",
      action: "done",
      respond: (ctx) => {
        const found = ctx.lastToolResultsText().includes(NEW_TAB_TEXT);
        return ctx.done({ success: found, output: { newTabTextFound: found } });
      },
    },
  ];
}

export function tourScript(options: { siteUrl: string; match: RegExp }): FakeLlmScript {
  const steps = tourSteps(options.siteUrl);
  return sequenceScript({
    name: "agent-bench-tour",
    match: options.match,
    steps: steps.map((step, turn) => (ctx: ScriptContext) => {
      const failed = ctx.lastToolResults().find((result) => result.content.startsWith("Error:"));
      if (turn > 0 && failed) throw new Error(`step ${turn - 1} (${steps[turn - 1]?.label}) failed: ${failed.content}`);
      return step.respond(ctx);
    }),
  });
}
