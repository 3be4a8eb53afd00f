import type { BrowserContext, Dialog, Page } from "playwright-core";
import type { TabInfo } from "./page-state.js";

const TITLE_TIMEOUT_MS = 2_000;

/**
 * The tabs of the agent's browser context in opening order. Every new page (a target=_blank link,
 * window.open, or one we open) becomes a tab and the active one, as it would for a person.
 */
export class TabList {
  private readonly pages: Page[] = [];
  private activePage: Page | null = null;
  private readonly dialogNotes: string[] = [];

  constructor(private readonly context: BrowserContext) {
    context.on("page", (page) => this.track(page));
  }

  get active(): Page {
    if (this.activePage === null || this.activePage.isClosed()) {
      throw new Error("There is no open tab");
    }
    return this.activePage;
  }

  /** The active tab, opening a blank one when the pages closed them all (window.close()). */
  async ensureActive(): Promise<Page> {
    if (this.activePage === null || this.activePage.isClosed()) return this.open();
    return this.activePage;
  }

  get count(): number {
    return this.pages.length;
  }

  get all(): readonly Page[] {
    return this.pages;
  }

  indexOf(page: Page): number {
    return this.pages.indexOf(page);
  }

  async open(): Promise<Page> {
    const page = await this.context.newPage();
    this.track(page);
    return page;
  }

  /** Makes the tab at `index` active; false when there is no such tab. */
  async activate(index: number): Promise<boolean> {
    const page = this.pages[index];
    if (page === undefined) return false;
    this.activePage = page;
    await page.bringToFront().catch(() => undefined);
    return true;
  }

  /** Closes the tab at `index`, keeping one tab open; false when there is no such tab. */
  async close(index: number): Promise<boolean> {
    const page = this.pages[index];
    if (page === undefined) return false;
    await page.close();
    this.forget(page);
    await this.ensureActive();
    return true;
  }

  async describe(): Promise<TabInfo[]> {
    return Promise.all(
      this.pages.map(async (page, index) => ({
        index,
        title: await titleOf(page),
        url: page.url(),
        active: page === this.activePage,
      })),
    );
  }

  /** Dialogs the pages raised since the last call, e.g. `alert "Saved" (accepted)`. */
  takeDialogNotes(): string[] {
    return this.dialogNotes.splice(0);
  }

  private track(page: Page): void {
    if (this.pages.includes(page)) return;
    this.pages.push(page);
    this.activePage = page;
    page.on("close", () => this.forget(page));
    page.on("dialog", (dialog) => void this.acceptDialog(dialog));
  }

  private forget(page: Page): void {
    const index = this.pages.indexOf(page);
    if (index < 0) return;
    this.pages.splice(index, 1);
    if (this.activePage === page) this.activePage = this.pages.at(-1) ?? null;
  }

  // A dialog blocks its page until answered; accepting is what the click that raised it asked for.
  private async acceptDialog(dialog: Dialog): Promise<void> {
    this.dialogNotes.push(`${dialog.type()} "${dialog.message()}" (accepted)`);
    await dialog.accept().catch(() => undefined);
  }
}

async function titleOf(page: Page): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(""), TITLE_TIMEOUT_MS);
  });
  try {
    return await Promise.race([page.title().catch(() => ""), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
