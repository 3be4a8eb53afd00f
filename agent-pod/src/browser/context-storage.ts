import {
  StorageStateCookie,
  StorageStateOrigin,
  type StorageState,
} from "@browser-agents/protocol";
import type { Logger } from "pino";
import type { Browser, BrowserContext } from "playwright-core";

const VIEWPORT = { width: 1280, height: 800 };

/**
 * A fresh browser context holding the profile's cookies and localStorage. Cookies are added after
 * creation so that one cookie Chromium refuses (say SameSite=None without Secure) costs only
 * itself instead of the whole profile.
 */
export async function createContextFromStorage(
  browser: Browser,
  storageState: StorageState | null,
  logger: Logger,
): Promise<BrowserContext> {
  const context = await browser.newContext({
    viewport: VIEWPORT,
    storageState: { cookies: [], origins: storageState?.origins ?? [] },
  });
  const cookies = storageState?.cookies ?? [];
  if (cookies.length === 0) return context;
  try {
    await context.addCookies(cookies);
  } catch {
    for (const cookie of cookies) {
      await context.addCookies([cookie]).catch((error: unknown) => {
        logger.warn({ cookie: cookie.name, domain: cookie.domain, err: error }, "dropped a cookie Chromium refused");
      });
    }
  }
  return context;
}

/** The context's cookies and localStorage in the protocol's format, leaving out what it cannot hold. */
export async function readContextStorage(context: BrowserContext, logger: Logger): Promise<StorageState> {
  const raw = await context.storageState();
  const cookies: StorageStateCookie[] = [];
  for (const cookie of raw.cookies) {
    const parsed = StorageStateCookie.safeParse(cookie);
    if (parsed.success) cookies.push(parsed.data);
    else logger.warn({ cookie: cookie.name, domain: cookie.domain }, "left out a cookie the profile cannot hold");
  }
  const origins: StorageStateOrigin[] = [];
  for (const origin of raw.origins) {
    const parsed = StorageStateOrigin.safeParse({ origin: origin.origin, localStorage: origin.localStorage });
    if (parsed.success) origins.push(parsed.data);
    else logger.warn({ origin: origin.origin }, "left out localStorage of an origin the profile format cannot hold");
  }
  return { cookies, origins };
}
