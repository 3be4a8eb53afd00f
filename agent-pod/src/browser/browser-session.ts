import type { StorageState } from "@browser-agents/protocol";
import type { Logger } from "pino";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { ActionAbortedError, settledWithin, untilAborted } from "./abortable.js";
import {
  ActionError,
  attemptDescription,
  mayChangePage,
  runAction,
  type ActionEnvironment,
  type ResolvedElement,
} from "./action-handlers.js";
import type { ActionResult, BrowserAction } from "./actions.js";
import { ChromiumProcess } from "./chromium-process.js";
import { createContextFromStorage, readContextStorage } from "./context-storage.js";
import { describeError } from "./error-summary.js";
import { NavigationWatcher } from "./navigation-watcher.js";
import { registeredElement } from "./in-page/frame-registry.js";
import {
  ELEMENT_REGISTRY_KEY,
  snapshotElements,
  type ElementReference,
  type PageState,
} from "./page-state.js";
import { readVisibleText } from "./page-text.js";
import { TabList } from "./tabs.js";

export interface BrowserSessionOptions {
  /** The Chromium executable, e.g. /usr/bin/chromium. */
  chromiumPath: string;
  /** Flags added after the built-in headless flags. */
  extraFlags: string[];
  /** DevTools port for live view; 0 picks a free one (read it back from `devtoolsPort`). */
  devtoolsPort: number;
  /** Address DevTools listens on, e.g. 127.0.0.1, or 0.0.0.0 for live view from outside the pod. */
  devtoolsAddress: string;
  /** The profile to start from; null starts empty. */
  storageState: StorageState | null;
  logger: Logger;
}

const ACTION_TIMEOUT_MS = 10_000;
const NAVIGATION_TIMEOUT_MS = 30_000;
const PAGE_READY_TIMEOUT_MS = 5_000;
const PAGE_STATE_ATTEMPTS = 3;
const GRACEFUL_CLOSE_MS = 3_000;
const KILL_WAIT_MS = 2_000;

/**
 * The agent's browser: one Chromium process we own, reachable over DevTools for live view, with
 * one fresh context built from the profile's storage state. Indices in `pageState()` refer to the
 * latest call and are what `execute()` acts on.
 */
export class BrowserSession {
  private references: ElementReference[] = [];
  private closing: Promise<void> | null = null;
  private readonly killOnExit = (): void => this.chromium.kill();

  private constructor(
    private readonly chromium: ChromiumProcess,
    private readonly browser: Browser,
    private readonly context: BrowserContext,
    private readonly tabs: TabList,
    private readonly logger: Logger,
  ) {
    // Chromium runs in its own process group, so it would outlive us if we died without this.
    process.on("exit", this.killOnExit);
    void chromium.exited.then(() => {
      if (this.closing === null) logger.error({ chromiumPid: chromium.pid }, "Chromium exited unexpectedly");
    });
  }

  /** The port Chromium's DevTools really listens on (live view attaches here). */
  get devtoolsPort(): number {
    return this.chromium.devtoolsPort;
  }

  /** Process id of the Chromium browser process (also its process group id). */
  get pid(): number {
    return this.chromium.pid;
  }

  static async launch(options: BrowserSessionOptions): Promise<BrowserSession> {
    const chromiumProcess = await ChromiumProcess.start(options);
    try {
      const browser = await chromium.connectOverCDP(chromiumProcess.browserWebSocketUrl);
      const context = await createContextFromStorage(browser, options.storageState, options.logger);
      context.setDefaultTimeout(ACTION_TIMEOUT_MS);
      context.setDefaultNavigationTimeout(NAVIGATION_TIMEOUT_MS);
      const tabs = new TabList(context);
      await tabs.open();
      options.logger.info(
        { chromiumPid: chromiumProcess.pid, devtoolsPort: chromiumProcess.devtoolsPort },
        "browser started",
      );
      return new BrowserSession(chromiumProcess, browser, context, tabs, options.logger);
    } catch (error) {
      await chromiumProcess.killAndWait(KILL_WAIT_MS);
      await chromiumProcess.removeProfile();
      throw error;
    }
  }

  /** The active tab as the model sees it; renumbers the elements `execute()` refers to. */
  async pageState(): Promise<PageState> {
    this.assertRunning();
    this.references = [];
    const page = await this.tabs.ensureActive();
    for (let attempt = 1; ; attempt += 1) {
      await page.waitForLoadState("domcontentloaded", { timeout: PAGE_READY_TIMEOUT_MS }).catch(() => undefined);
      try {
        const elements = await snapshotElements(page);
        this.references = elements.references;
        return {
          url: page.url(),
          title: await page.title().catch(() => ""),
          tabs: await this.tabs.describe(),
          scroll: elements.scroll,
          elementsText: elements.elementsText,
          elementCount: elements.references.length,
        };
      } catch (error) {
        // A navigation that commits mid-snapshot destroys the context; the next try sees the new page.
        if (attempt >= PAGE_STATE_ATTEMPTS || page.isClosed()) throw error;
        this.logger.debug({ err: error, attempt }, "page changed during snapshot, retrying");
      }
    }
  }

  /**
   * Runs one action on the active tab. Never throws: failures, bad indices, timeouts and aborts
   * come back as `{ ok: false, summary }` with a reason the model can act on.
   */
  async execute(action: BrowserAction, signal: AbortSignal): Promise<ActionResult> {
    if (this.closing !== null || this.chromium.hasExited) {
      return { ok: false, summary: "The browser is not running", httpStatus: null };
    }
    let page: Page;
    try {
      page = await this.tabs.ensureActive();
    } catch (error) {
      return { ok: false, summary: `The browser has no usable tab: ${describeError(error)}`, httpStatus: null };
    }
    const pagesBefore = new Set(this.tabs.all);
    const watcher = new NavigationWatcher(page);
    const handles: ResolvedElement[] = [];
    let navigationExpected = false;
    const environment: ActionEnvironment = {
      tabs: this.tabs,
      signal,
      element: async (index) => {
        const element = await this.resolveElement(index);
        handles.push(element);
        return element;
      },
      readPageText: () => this.pageText(),
      expectNavigation: () => {
        navigationExpected = true;
      },
    };
    try {
      const result = await untilAborted(runAction(action, environment), signal, () => new ActionAbortedError());
      if (mayChangePage(action)) await watcher.settle(signal, navigationExpected);
      const newTab = mayChangePage(action) ? this.newActiveTab(pagesBefore) : null;
      return {
        ...result,
        summary: this.withSideEffects(result.summary, newTab),
        httpStatus: result.httpStatus ?? watcher.httpStatus,
      };
    } catch (error) {
      if (error instanceof ActionAbortedError) return { ok: false, summary: "Action aborted", httpStatus: null };
      const summary =
        error instanceof ActionError
          ? error.message
          : `${attemptDescription(action, (index) => this.labelOf(index))}: ${describeError(error)}`;
      return { ok: false, summary: this.withSideEffects(summary, null), httpStatus: watcher.httpStatus };
    } finally {
      watcher.dispose();
      for (const element of handles) void element.handle.dispose().catch(() => undefined);
    }
  }

  /** Visible text of the active tab, its iframes and shadow roots, bounded to ~20k characters. */
  async pageText(): Promise<string> {
    this.assertRunning();
    const page = await this.tabs.ensureActive();
    await page.waitForLoadState("domcontentloaded", { timeout: PAGE_READY_TIMEOUT_MS }).catch(() => undefined);
    return readVisibleText(page);
  }

  /** Cookies and localStorage of the session, in the protocol's profile format. */
  async storageState(): Promise<StorageState> {
    this.assertRunning();
    return readContextStorage(this.context, this.logger);
  }

  /** Stops Chromium; kills its process group when it does not exit within 3 s. Safe to call twice. */
  close(): Promise<void> {
    this.closing ??= this.shutDown();
    return this.closing;
  }

  private async shutDown(): Promise<void> {
    if (!this.chromium.hasExited && !(await this.requestBrowserClose())) {
      this.logger.warn({ chromiumPid: this.chromium.pid }, "Chromium did not close in time, killing it");
    }
    // Renderers and helpers share the process group; sweep any that outlived the browser process.
    if (!(await this.chromium.killAndWait(KILL_WAIT_MS))) {
      this.logger.warn({ chromiumPid: this.chromium.pid }, "Chromium processes still exiting after close");
    }
    await this.browser.close().catch(() => undefined);
    await this.chromium.removeProfile();
    process.off("exit", this.killOnExit);
    this.logger.info({ chromiumPid: this.chromium.pid }, "browser closed");
  }

  private async requestBrowserClose(): Promise<boolean> {
    const closed = (async () => {
      const session = await this.browser.newBrowserCDPSession();
      await session.send("Browser.close").catch(() => undefined);
      await this.chromium.exited;
    })();
    await settledWithin(closed, GRACEFUL_CLOSE_MS);
    return this.chromium.hasExited;
  }

  private assertRunning(): void {
    if (this.closing !== null) throw new Error("The browser session is closed");
    if (this.chromium.hasExited) throw new Error("Chromium has exited");
  }

  private labelOf(index: number): string {
    const reference = this.references[index];
    return reference === undefined ? `[${index}]` : `[${index}]${reference.description}`;
  }

  private async resolveElement(index: number): Promise<ResolvedElement> {
    const reference = this.references[index];
    if (reference === undefined) {
      throw new ActionError(
        this.references.length === 0
          ? `There is no element [${index}]: the latest page state lists no elements`
          : `There is no element [${index}]: the latest page state lists [0] to [${this.references.length - 1}]`,
      );
    }
    const label = this.labelOf(index);
    const gone = new ActionError(`${label} is no longer on the page; read the new page state`);
    if (reference.frame.isDetached() || reference.frame.page() !== this.tabs.active) throw gone;
    const handle = await reference.frame
      .evaluateHandle(registeredElement, { registryKey: ELEMENT_REGISTRY_KEY, index: reference.indexInFrame })
      .catch(() => null);
    const element = handle?.asElement() ?? null;
    if (element === null) {
      await handle?.dispose().catch(() => undefined);
      throw gone;
    }
    return { handle: element, label };
  }

  /** The active tab when the action opened it, e.g. through a target=_blank link. */
  private newActiveTab(pagesBefore: ReadonlySet<Page>): Page | null {
    try {
      const active = this.tabs.active;
      return pagesBefore.has(active) ? null : active;
    } catch {
      return null;
    }
  }

  /** Appends what the page did by itself during the action: a new tab, a dialog. */
  private withSideEffects(summary: string, newTab: Page | null): string {
    const notes: string[] = [];
    if (newTab !== null) notes.push(`it opened tab [${this.tabs.indexOf(newTab)}] (${newTab.url()}), now active`);
    for (const dialog of this.tabs.takeDialogNotes()) notes.push(`the page showed ${dialog}`);
    return notes.length === 0 ? summary : `${summary}; ${notes.join("; ")}`;
  }
}
