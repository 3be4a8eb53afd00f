import type { Page, Request, Response } from "playwright-core";
import { ActionAbortedError, abortableDelay, settledWithin, untilAborted } from "./abortable.js";

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

  private readonly onRequest = (request: Request): void => {
    if (this.isMainFrameNavigation(request)) this.pendingRequest = request;
  };
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
  }

  /** Status of the last main-frame document response seen, or null when there was none. */
  get httpStatus(): number | null {
    return this.lastStatus;
  }

  /**
   * Gives a navigation the action may have started time to begin, then waits for it to load.
   * Navigations and popups a click causes are started within the event's task, so two rendered
   * frames later they have begun; a fixed wait instead cost every click its whole length.
   */
  async settle(signal: AbortSignal): Promise<void> {
    await Promise.race([this.twoFramesLater(), abortableDelay(NAVIGATION_START_GRACE_MS, signal)]);
    signal.throwIfAborted();
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
    this.loaded();
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
