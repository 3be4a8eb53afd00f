import type { ActionResult, BrowserAction, PageState } from "../browser/index.js";

/** What the loop needs of the browser (BrowserSession provides it). */
export interface AgentBrowser {
  /** Renumbers the elements that index-based actions refer to. */
  pageState(): Promise<PageState>;
  /** Never throws for a failed action: the failure is `{ ok: false, summary }`. */
  execute(action: BrowserAction, signal: AbortSignal): Promise<ActionResult>;
}
