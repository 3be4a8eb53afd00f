import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ActionResult, BrowserAction } from "./actions.js";
import { BrowserSession } from "./browser-session.js";
import type { PageState } from "./page-state.js";
import { escapeHtml, startTestSite, type TestSite } from "./test-support/test-site.js";

let site: TestSite;
let session: BrowserSession;

beforeAll(async () => {
  site = await startTestSite();
  site.route("/", `<title>Home</title><a href="/form">Sign-in form</a>`);
  site.route(
    "/form",
    `<title>Sign in</title>
    <form method="post" action="/submitted">
      <input name="username" value="old name">
      <input name="note">
      <select name="size"><option value="s">Small</option><option value="m">Medium</option><option value="l">Large</option></select>
      <button type="submit">Sign in</button>
    </form>
    <button onclick="alert('Saved!')">Save</button>`,
  );
  site.route("/submitted", (request, response, body) => {
    const form = new URLSearchParams(body);
    const values = [...form.entries()].map(([name, value]) => `${name}=[${value}]`).join(" ");
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    response.end(`<title>Submitted</title><p>${request.method} ${escapeHtml(values)}</p>`);
  });
  site.route("/broken", (_request, response) => {
    response.writeHead(502, { "content-type": "text/html" }).end("<title>Bad gateway</title><p>Upstream is down</p>");
  });
  site.route("/long", `<title>Long</title><div style="height: 5000px">Top of a long page</div>`);
  site.route("/tabs", `<title>Tabs</title><a href="/docs" target="_blank">Open docs</a>`);
  site.route("/docs", `<title>Docs</title><p>Documentation body</p>`);
  session = await BrowserSession.launch({
    chromiumPath: "/usr/bin/chromium",
    extraFlags: [],
    devtoolsPort: 0,
    devtoolsAddress: "127.0.0.1",
    storageState: null,
    logger: pino({ level: "silent" }),
  });
}, 30_000);

afterAll(async () => {
  await session?.close();
  await site?.close();
});

function run(action: BrowserAction, signal = new AbortController().signal): Promise<ActionResult> {
  return session.execute(action, signal);
}

async function open(path: string): Promise<PageState> {
  const result = await run({ name: "navigate", url: `${site.origin}${path}` });
  expect(result).toMatchObject({ ok: true, httpStatus: 200 });
  return session.pageState();
}

/** The index of the single element line containing `fragment`. */
function indexOf(state: PageState, fragment: string): number {
  const matches = state.elementsText.split("\n").filter((line) => line.includes(fragment));
  expect(matches).toHaveLength(1);
  return Number(/\[(\d+)\]/.exec(matches[0] ?? "")?.[1]);
}

describe("navigate", () => {
  it("records the HTTP status of the page it lands on, errors included", async () => {
    const result = await run({ name: "navigate", url: `${site.origin}/broken` });
    expect(result).toMatchObject({ ok: true, httpStatus: 502 });
    expect(result.summary).toContain("HTTP 502");
    expect((await session.pageState()).title).toBe("Bad gateway");
  });

  it("refuses URLs that would reach the pod's own files", async () => {
    const result = await run({ name: "navigate", url: "file:///etc/passwd" });
    expect(result.ok).toBe(false);
    expect(result.summary).toContain("Only http and https");
  });
});

describe("element actions", () => {
  it("clicks a link and records the status of the page it leads to", async () => {
    const state = await open("/");
    const result = await run({ name: "click", index: indexOf(state, "Sign-in form") });
    expect(result).toMatchObject({ ok: true, httpStatus: 200 });
    expect(result.summary).toBe(`Clicked [0]<a href="/form">Sign-in form</a>`);
    expect((await session.pageState()).url).toBe(`${site.origin}/form`);
  });

  it("types (replacing or appending), selects by text and by value, and submits with Enter", async () => {
    let state = await open("/form");
    const username = indexOf(state, `name="username"`);
    const note = indexOf(state, `name="note"`);
    const size = indexOf(state, `name="size"`);

    expect((await run({ name: "select_option", index: size, option: "Large" })).ok).toBe(true);
    expect((await session.pageState()).elementsText).toContain(`options="Small|Medium|Large">Large</select>`);
    const byValue = await run({ name: "select_option", index: size, option: "m" });
    expect(byValue).toMatchObject({ ok: true, summary: expect.stringContaining(`Selected "Medium"`) });

    await run({ name: "type", index: note, text: "hello", clear: false });
    await run({ name: "type", index: note, text: " world", clear: false });
    const typed = await run({ name: "type", index: username, text: `al"ice <ü> & co`, clear: true });
    expect(typed.ok).toBe(true);
    expect(typed.summary).not.toContain("alice");
    state = await session.pageState();
    expect(state.elementsText).toContain(`value="hello world"`);

    const submitted = await run({ name: "press_keys", keys: "Enter" });
    expect(submitted).toMatchObject({ ok: true, httpStatus: 200 });
    expect((await session.pageState()).url).toBe(`${site.origin}/submitted`);
    expect(await session.pageText()).toBe(`POST username=[al"ice <ü> & co] note=[hello world] size=[m]`);
  });

  it("explains why an action on an element failed instead of throwing", async () => {
    const state = await open("/form");
    const missing = await run({ name: "click", index: 99 });
    expect(missing).toMatchObject({ ok: false, summary: expect.stringContaining("There is no element [99]") });
    const notSelect = await run({ name: "select_option", index: indexOf(state, "Sign in</button>"), option: "x" });
    expect(notSelect).toMatchObject({ ok: false, summary: expect.stringContaining("is not a <select>") });
    const noOption = await run({ name: "select_option", index: indexOf(state, "<select"), option: "Huge" });
    expect(noOption.summary).toContain("its options are Small|Medium|Large");
    const badKey = await run({ name: "press_keys", keys: "NoSuchKey" });
    expect(badKey).toMatchObject({ ok: false, summary: expect.stringContaining("Unknown key") });
  });

  it("reports that an element from an older page is gone", async () => {
    const state = await open("/form");
    await run({ name: "navigate", url: `${site.origin}/` });
    const result = await run({ name: "click", index: indexOf(state, "Sign in</button>") });
    expect(result).toMatchObject({ ok: false, summary: expect.stringContaining("is no longer on the page") });
  });

  it("accepts a dialog the page raises and says so", async () => {
    const state = await open("/form");
    const result = await run({ name: "click", index: indexOf(state, ">Save</button>") });
    expect(result.ok).toBe(true);
    expect(result.summary).toContain(`alert "Saved!" (accepted)`);
  });
});

describe("page actions", () => {
  it("scrolls down and up by viewport heights and says when it cannot", async () => {
    expect((await open("/long")).scroll).toMatchObject({ abovePx: 0 });
    expect((await run({ name: "scroll", direction: "down", pages: 2 })).summary).toBe("Scrolled the page down by 1600 px");
    expect((await session.pageState()).scroll.abovePx).toBe(1600);
    await run({ name: "scroll", direction: "up", pages: 5 });
    expect((await session.pageState()).scroll.abovePx).toBe(0);
    const atTop = await run({ name: "scroll", direction: "up", pages: 1 });
    expect(atTop.summary).toContain("already at the top");
  });

  it("goes back to the previous page", async () => {
    await open("/");
    await open("/long");
    const result = await run({ name: "go_back" });
    expect(result.ok).toBe(true);
    expect((await session.pageState()).url).toBe(`${site.origin}/`);
  });

  it("follows a target=_blank link into a new tab, switches and closes tabs", async () => {
    const state = await open("/tabs");
    const click = await run({ name: "click", index: indexOf(state, "Open docs") });
    expect(click.summary).toContain("it opened tab [1]");
    const inNewTab = await session.pageState();
    expect(inNewTab.tabs.map((tab) => [tab.title, tab.active])).toEqual([
      ["Tabs", false],
      ["Docs", true],
    ]);
    expect(inNewTab.url).toBe(`${site.origin}/docs`);

    expect((await run({ name: "switch_tab", tabIndex: 0 })).ok).toBe(true);
    expect((await session.pageState()).url).toBe(`${site.origin}/tabs`);
    expect((await run({ name: "switch_tab", tabIndex: 5 })).ok).toBe(false);

    expect((await run({ name: "close_tab", tabIndex: 1 })).ok).toBe(true);
    const afterClose = await session.pageState();
    expect(afterClose.tabs).toHaveLength(1);
    expect(afterClose.url).toBe(`${site.origin}/tabs`);
  });

  it("reads the page text for the model", async () => {
    await open("/docs");
    const result = await run({ name: "read_page" });
    expect(result).toMatchObject({ ok: true, content: "Documentation body" });
  });

  it("waits, and stops waiting as soon as it is aborted", async () => {
    expect(await run({ name: "wait", seconds: 0.05 })).toMatchObject({ ok: true });
    const controller = new AbortController();
    const waiting = run({ name: "wait", seconds: 30 }, controller.signal);
    setTimeout(() => controller.abort(), 50);
    // The test's 5 s timeout, far below the 30 s wait, is what fails if the abort is not honoured.
    expect(await waiting).toMatchObject({ ok: false, summary: "Action aborted" });
  }, 5_000);
});
