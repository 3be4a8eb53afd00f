import type { Page, Request, Response } from "playwright-core";
import { ActionAbortedError, settledWithin, untilAborted } from "./abortable.js";

/** The longest a click's navigation or popup is given to begin (when the page cannot tell sooner). */
const NAVIGATION_START_GRACE_MS = 250;
const NAVIGATION_LOAD_TIMEOUT_MS = 10_000;

/**
 * Watches one page's main-frame navigations during an action: records the HTTP status of the
 * document it lands on, and lets the action wait for a navigation it started to load.
 */
export class NavigationWatcher {
  private lastStatus: number | null = null;
  private pendingRequest: Request | null = null;
  private loaded: () => void = () => undefined;
  private markStarted: () => void = () => undefined;
  /** Resolves when a main-frame navigation or a new tab begins. */
  private readonly started = new Promise<void>((resolve) => {
    this.markStarted = resolve;
  });

  private readonly onRequest = (request: Request): void => {
    if (!this.isMainFrameNavigation(request)) return;
    this.pendingRequest = request;
    this.markStarted();
  };
  private readonly onNewPage = (): void => this.markStarted();
  private readonly onResponse = (response: Response): void => {
    if (this.isMainFrameNavigation(response.request())) this.lastStatus = response.status();
  };
  private readonly onRequestFailed = (request: Request): void => {
    if (request === this.pendingRequest) this.finishPending();
  };
  private readonly onDomContentLoaded = (): void => this.finishPending();

  constructor(private readonly page: Page) {
    page.on("request", this.onRequest);
    page.on("response", this.onResponse);
    page.on("requestfailed", this.onRequestFailed);
    page.on("domcontentloaded", this.onDomContentLoaded);
    page.context().on("page", this.onNewPage);
  }

  /** Status of the last main-frame document response seen, or null when there was none. */
  get httpStatus(): number | null {
    return this.lastStatus;
  }

  /**
   * Gives a navigation or new tab the action may have started time to begin, then waits for a
   * navigation to load. When the action is of the kind that navigates (a link, a form, Enter),
   * it waits for the navigation request or the new tab itself, up to the grace period; otherwise
   * two rendered frames, by which a script's navigation has begun (a fixed wait cost every click
   * its whole length).
   */
  async settle(signal: AbortSignal, navigationExpected: boolean): Promise<void> {
    const started = navigationExpected ? this.started : this.twoFramesLater();
    await untilAborted(settledWithin(started, NAVIGATION_START_GRACE_MS), signal, () => new ActionAbortedError());
    if (this.pendingRequest === null) return;
    const loaded = new Promise<void>((resolve) => {
      this.loaded = resolve;
    });
    await untilAborted(settledWithin(loaded, NAVIGATION_LOAD_TIMEOUT_MS), signal, () => new ActionAbortedError());
  }

  private async twoFramesLater(): Promise<void> {
    try {
      await this.page.evaluate(() => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))));
    } catch {
      // The page is navigating away (its context went): the navigation has begun.
    }
  }

  dispose(): void {
    this.page.off("request", this.onRequest);
    this.page.off("response", this.onResponse);
    this.page.off("requestfailed", this.onRequestFailed);
    this.page.off("domcontentloaded", this.onDomContentLoaded);
    this.page.context().off("page", this.onNewPage);
    this.loaded();
    this.markStarted();
  }

  private finishPending(): void {
    this.pendingRequest = null;
    this.loaded();
  }

  private isMainFrameNavigation(request: Request): boolean {
    try {
      return request.isNavigationRequest() && request.frame() === this.page.mainFrame();
    } catch {
      // Service-worker requests have no frame.
      return false;
    }
  }
}
