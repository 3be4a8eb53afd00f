import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BrowserSession } from "./browser-session.js";
import { formatPageState, type PageState } from "./page-state.js";
import { startTestSite, type TestSite } from "./test-support/test-site.js";

const CHROMIUM_PATH = "/usr/bin/chromium";

let site: TestSite;
let otherSite: TestSite;
let session: BrowserSession;

beforeAll(async () => {
  site = await startTestSite();
  otherSite = await startTestSite();
  site.route(
    "/",
    `<!doctype html><html><head><title>Shop</title></head><body>
      <a href="/docs">Docs</a>
      <input type="text" name="username" placeholder="User name">
      <input type="password" name="password" value="hunter2">
      <input type="hidden" name="csrf" value="token">
      <button style="display:none">Not displayed</button>
      <div style="visibility:hidden"><button>Invisible</button></div>
      <select name="size"><option value="s">Small</option><option value="m" selected>Medium</option><option value="l">Large</option></select>
      <label><input type="checkbox" name="agree" checked> I agree</label>
      <iframe src="/frame" width="400" height="100"></iframe>
      <shop-widget></shop-widget>
      <script>
        customElements.define("shop-widget", class extends HTMLElement {
          constructor() {
            super();
            this.attachShadow({ mode: "open" }).innerHTML =
              '<p>Shadow text</p><button aria-label="Add to cart" onclick="this.textContent = \\'Added\\'">+</button>';
          }
        });
      </script>
      <iframe src="${otherSite.origin}/widget" width="400" height="100"></iframe>
      <p style="display:none">Hidden paragraph</p>
      <div style="height: 3000px">Spacer</div>
      <button>${"Far below ".repeat(20)}</button>
    </body></html>`,
  );
  site.route("/frame", `<p>Frame text</p><button>Inside frame</button>`);
  otherSite.route(
    "/widget",
    `<p>Widget text</p><button onclick="this.textContent = 'Clicked in widget'">Cross-origin button</button>`,
  );
  site.route("/huge", `<title>Huge</title><p>${"lorem ipsum ".repeat(5_000)}</p>`);
  session = await BrowserSession.launch({
    chromiumPath: CHROMIUM_PATH,
    // Ports alone do not make origins cross-site; this puts the other origin out of process anyway.
    extraFlags: ["--enable-features=StrictOriginIsolation"],
    devtoolsPort: 0,
    devtoolsAddress: "127.0.0.1",
    storageState: null,
    logger: pino({ level: "silent" }),
  });
}, 30_000);

afterAll(async () => {
  await session?.close();
  await site?.close();
  await otherSite?.close();
});

/** The shop page once both iframes have loaded (on a busy machine the first snapshot may precede them). */
async function openShop(): Promise<PageState> {
  const result = await session.execute({ name: "navigate", url: `${site.origin}/` }, new AbortController().signal);
  expect(result.ok).toBe(true);
  let state = await session.pageState();
  for (let attempt = 0; attempt < 50 && !(state.elementsText.includes("Inside frame") && state.elementsText.includes("Cross-origin button")); attempt += 1) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    state = await session.pageState();
  }
  return state;
}

describe("page state", () => {
  it("lists visible interactive elements of the page, its iframes and shadow roots in document order", async () => {
    const state = await openShop();
    expect(state.elementsText.split("\n")).toEqual([
      `[0]<a href="/docs">Docs</a>`,
      `[1]<input type="text" name="username" placeholder="User name">`,
      `[2]<input type="password" name="password">`,
      `[3]<select name="size" options="Small|Medium|Large">Medium</select>`,
      `[4]<input type="checkbox" name="agree" checked>`,
      `  iframe ${site.origin}/frame:`,
      `  [5]<button>Inside frame</button>`,
      `[6]<button aria-label="Add to cart">+</button>`,
      `  iframe ${otherSite.origin}/widget:`,
      `  [7]<button>Cross-origin button</button>`,
      `[8]<button>${"Far below ".repeat(20).slice(0, 99)}…</button>`,
    ]);
    expect(state.elementCount).toBe(9);
  });

  it("runs the cross-origin iframe in its own process, so the test covers out-of-process frames", async () => {
    await openShop();
    const targets = (await (await fetch(`http://127.0.0.1:${session.devtoolsPort}/json/list`)).json()) as Array<{
      type: string;
      url: string;
    }>;
    expect(targets).toContainEqual(expect.objectContaining({ type: "iframe", url: `${otherSite.origin}/widget` }));
  });

  it("formats the whole state with URL, title, tabs and scroll position", async () => {
    const state = await openShop();
    expect(state.scroll.abovePx).toBe(0);
    expect(state.scroll.belowPx).toBeGreaterThan(2_000);
    const formatted = formatPageState(state);
    expect(formatted).toMatch(
      new RegExp(
        `^Current URL: ${site.origin}/\\nTitle: Shop\\nTabs: \\[0\\] Shop \\(${site.origin}/\\) \\(active\\)\\n` +
          `Scroll: 0 px above, \\d+ px below\\nInteractive elements:\\n\\[0\\]<a href="/docs">Docs</a>\\n`,
      ),
    );
  });

  it("lets actions reach elements inside a cross-origin iframe and a shadow root", async () => {
    await openShop();
    const signal = new AbortController().signal;
    expect((await session.execute({ name: "click", index: 7 }, signal)).ok).toBe(true);
    expect((await session.execute({ name: "click", index: 6 }, signal)).ok).toBe(true);
    const state = await session.pageState();
    expect(state.elementsText).toContain(`[7]<button>Clicked in widget</button>`);
    expect(state.elementsText).toContain(`[6]<button aria-label="Add to cart">Added</button>`);
  });

  it("reads visible text across iframes and shadow roots, leaving hidden text out", async () => {
    await openShop();
    const text = await session.pageText();
    expect(text).toContain("Frame text");
    expect(text).toContain("Widget text");
    expect(text).toContain("Shadow text");
    expect(text).toContain("I agree");
    expect(text).not.toContain("Hidden paragraph");
    expect(text).not.toContain("Invisible");
    expect(text.indexOf("Frame text")).toBeLessThan(text.indexOf("Shadow text"));
    expect(text.indexOf("Shadow text")).toBeLessThan(text.indexOf("Widget text"));
  });

  it("bounds the page text to about 20k characters", async () => {
    await session.execute({ name: "navigate", url: `${site.origin}/huge` }, new AbortController().signal);
    const text = await session.pageText();
    expect(text.length).toBeLessThan(20_100);
    expect(text).toMatch(/\[page text truncated at 20000 characters\]$/);
  });
});
