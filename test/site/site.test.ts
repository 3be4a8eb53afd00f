import { type Browser, type BrowserContext, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  DEVICE_STORAGE_KEY,
  DEVICE_STORAGE_VALUE,
  LONG_PAGE_BOTTOM_TEXT,
  NEW_TAB_TEXT,
  SESSION_COOKIE,
  SITE_PASSWORD,
  SITE_USERNAME,
  type TestSite,
  startTestSite,
} from "./index.js";
import { DEFAULT_CHROMIUM_FLAGS as CHROMIUM_FLAGS } from "../../agent-pod/src/browser/chromium-flags.js";


let site: TestSite;
let browser: Browser;

beforeAll(async () => {
  site = await startTestSite();
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_FLAGS });
});

afterAll(async () => {
  await browser?.close();
  await site?.close();
});

async function withContext<T>(
  run: (context: BrowserContext) => Promise<T>,
  storageState?: Awaited<ReturnType<BrowserContext["storageState"]>>,
): Promise<T> {
  const context = await browser.newContext(storageState ? { storageState } : {});
  try {
    return await run(context);
  } finally {
    await context.close();
  }
}

describe("test site in Chromium", () => {
  it("login sets an httpOnly session cookie and a localStorage item, then shows the account", async () => {
    const state = await withContext(async (context) => {
      const page = await context.newPage();
      await page.goto(`${site.url}/login`);
      await page.getByPlaceholder("User name").fill(SITE_USERNAME);
      await page.getByPlaceholder("Password").fill(SITE_PASSWORD);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL(`${site.url}/account`);

      await expect.poll(() => page.textContent("body")).toContain("Remembered device: yes");
      expect(await page.textContent("body")).toMatch(/Plan: Pro[\s\S]*Credits: 42/);
      expect(await page.evaluate((key) => localStorage.getItem(key), DEVICE_STORAGE_KEY)).toBe(DEVICE_STORAGE_VALUE);
      const cookie = (await context.cookies()).find((c) => c.name === SESSION_COOKIE);
      expect(cookie?.httpOnly).toBe(true);
      return context.storageState();
    });

    // The saved state alone (as a restored profile) opens the account again.
    await withContext(async (context) => {
      const page = await context.newPage();
      await page.goto(`${site.url}/account`);
      expect(page.url()).toBe(`${site.url}/account`);
      expect(await page.textContent("#device")).toBe("yes");
    }, state);

    // Without the saved localStorage the device is not remembered: profile tests can tell.
    await withContext(async (context) => {
      const page = await context.newPage();
      await page.goto(`${site.url}/account`);
      expect(await page.textContent("#device")).toBe("no");
    }, { ...state, origins: [] });
  });

  it("rejects a wrong password without setting a cookie", async () => {
    await withContext(async (context) => {
      const page = await context.newPage();
      await page.goto(`${site.url}/login`);
      await page.getByPlaceholder("User name").fill(SITE_USERNAME);
      await page.getByPlaceholder("Password").fill("wrong");
      await page.getByRole("button", { name: "Sign in" }).click();

      await expect.poll(() => page.textContent("body")).toContain("Wrong user name or password");
      expect(await context.cookies()).toEqual([]);
    });
  });

  it("redirects /account to /login without the session cookie", async () => {
    await withContext(async (context) => {
      const page = await context.newPage();
      await page.goto(`${site.url}/account`);
      expect(page.url()).toBe(`${site.url}/login`);
    });
  });

  it.each([
    ["same-origin", "/frame"],
    ["cross-origin", "/frame?crossOrigin=1"],
  ])("types and clicks inside a %s iframe", async (_kind, path) => {
    await withContext(async (context) => {
      const page = await context.newPage();
      await page.goto(`${site.url}${path}`);
      const frame = page.frameLocator("iframe");
      await frame.getByPlaceholder("Frame note").fill("hello frame");
      await frame.getByRole("button", { name: "Press inside frame" }).click();

      await expect.poll(() => frame.locator("#frame-status").textContent()).toBe("Frame button pressed with: hello frame");
    });
  });

  it("types and clicks inside an open shadow root", async () => {
    await withContext(async (context) => {
      const page = await context.newPage();
      await page.goto(`${site.url}/shadow`);
      await page.getByPlaceholder("Shadow note").fill("hello shadow");
      await page.getByRole("button", { name: "Press inside shadow" }).click();

      await expect.poll(() => page.locator("#shadow-status").textContent()).toBe("Shadow button pressed with: hello shadow");
      expect(await page.evaluate(() => document.querySelector("input"))).toBeNull();
    });
  });

  it("opens the target=_blank link in a new tab with distinctive text", async () => {
    await withContext(async (context) => {
      const page = await context.newPage();
      await page.goto(`${site.url}/new-tab`);
      const [tab] = await Promise.all([context.waitForEvent("page"), page.getByRole("link").last().click()]);
      await tab.waitForLoadState();

      expect(tab.url()).toBe(`${site.url}/tab-target`);
      expect(await tab.textContent("body")).toContain(NEW_TAB_TEXT);
    });
  });

  it("confirms the option chosen in the order form", async () => {
    await withContext(async (context) => {
      const page = await context.newPage();
      await page.goto(`${site.url}/order`);
      await page.selectOption('select[name="size"]', { label: "Large" });
      await page.getByRole("button", { name: "Place order" }).click();

      await expect.poll(() => page.textContent("body")).toContain("Order confirmed: Large");
    });
  });

  it("echoes what is typed and keeps the long page's end below the viewport", async () => {
    await withContext(async (context) => {
      const page = await context.newPage();
      await page.goto(`${site.url}/echo`);
      await page.getByPlaceholder("Type something").pressSequentially("typed words");
      expect(await page.textContent("#echo")).toBe("typed words");

      await page.goto(`${site.url}/long`);
      const bottom = await page.getByText(LONG_PAGE_BOTTOM_TEXT).boundingBox();
      expect(bottom?.y ?? 0).toBeGreaterThan(3 * (page.viewportSize()?.height ?? 720));
    });
  });
});

describe("test site over HTTP", () => {
  it("paginates 15 products over 3 pages with next and previous links", async () => {
    const second = await (await fetch(`${site.url}/products?page=2`)).text();
    const last = await (await fetch(`${site.url}/products?page=3`)).text();

    expect(second).toMatch(/Product 6 [\s\S]*Product 10 /);
    expect(second).not.toContain("Product 11 ");
    expect(second).toContain('href="/products?page=1">Previous page');
    expect(second).toContain('href="/products?page=3">Next page');
    expect(last).not.toContain("Next page");
    expect((await fetch(`${site.url}/products?page=4`)).status).toBe(404);
  });

  it("serves a slow page and an arbitrary status page", async () => {
    const slow = await fetch(`${site.url}/slow?ms=30`);
    expect(await slow.text()).toContain("Slow page loaded after 30 ms");
    expect((await fetch(`${site.url}/status/502`)).status).toBe(502);
  });
});
