import type { Page, Request, Response } from "playwright-core";
import { ActionAbortedError, abortableDelay, settledWithin, untilAborted } from "./abortable.js";

/** Long enough for a click's navigation or popup to begin, short enough not to slow every step. */
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

  /** Gives a navigation the action may have started time to begin, then waits for it to load. */
  async settle(signal: AbortSignal): Promise<void> {
    await abortableDelay(NAVIGATION_START_GRACE_MS, signal);
    if (this.pendingRequest === null) return;
    const loaded = new Promise<void>((resolve) => {
      this.loaded = resolve;
    });
    await untilAborted(settledWithin(loaded, NAVIGATION_LOAD_TIMEOUT_MS), signal, () => new ActionAbortedError());
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
