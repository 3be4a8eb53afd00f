/// <reference lib="dom" />
// Evaluated inside page frames by Playwright, which serializes each exported function: every one
// must be self-contained (no imports, nothing from module scope) and use only what a page offers.

export interface ScrollRequest {
  direction: "down" | "up";
  pages: number;
}

/** Scrolls the page (or, on pages that scroll an inner pane, the largest such pane); returns px moved. */
export function scrollPageBy(request: ScrollRequest): number {
  const sign = request.direction === "down" ? 1 : -1;
  const scroller = document.scrollingElement ?? document.documentElement;
  if (scroller.scrollHeight > scroller.clientHeight + 1) {
    const before = window.scrollY;
    window.scrollBy({ top: sign * request.pages * window.innerHeight, behavior: "instant" });
    return window.scrollY - before;
  }
  let pane: Element | null = null;
  let paneArea = 0;
  for (const el of Array.from(document.querySelectorAll("*"))) {
    const overflow = getComputedStyle(el).overflowY;
    if ((overflow !== "auto" && overflow !== "scroll") || el.scrollHeight <= el.clientHeight + 1) continue;
    const area = el.clientWidth * el.clientHeight;
    if (area > paneArea) {
      pane = el;
      paneArea = area;
    }
  }
  if (pane === null) return 0;
  const before = pane.scrollTop;
  pane.scrollBy({ top: sign * request.pages * pane.clientHeight, behavior: "instant" });
  return pane.scrollTop - before;
}

/** Scrolls the nearest scrollable box around `element` (itself included); returns px moved. */
export function scrollAround(element: Element, request: ScrollRequest): number {
  const sign = request.direction === "down" ? 1 : -1;
  let current: Element | null = element;
  while (current !== null) {
    const overflow = getComputedStyle(current).overflowY;
    if ((overflow === "auto" || overflow === "scroll") && current.scrollHeight > current.clientHeight + 1) {
      const before = current.scrollTop;
      current.scrollBy({ top: sign * request.pages * current.clientHeight, behavior: "instant" });
      return current.scrollTop - before;
    }
    const root = current.getRootNode();
    current = current.parentElement ?? (root instanceof ShadowRoot ? root.host : null);
  }
  const before = window.scrollY;
  window.scrollBy({ top: sign * request.pages * window.innerHeight, behavior: "instant" });
  return window.scrollY - before;
}

/** Focuses a text field with the caret at the end; false when `element` takes no typed text. */
export function focusAtEnd(element: Element): boolean {
  const NON_TEXT_INPUTS = new Set([
    "checkbox", "radio", "button", "submit", "reset", "file", "image", "range", "color", "hidden",
  ]);
  if (element instanceof HTMLInputElement || element instanceof HTMLTextAreaElement) {
    if (element instanceof HTMLInputElement && NON_TEXT_INPUTS.has(element.type)) return false;
    element.focus();
    try {
      element.setSelectionRange(element.value.length, element.value.length);
    } catch {
      // email and number inputs have no selection API; the caret is already at the end after focus.
    }
    return true;
  }
  if (element instanceof HTMLElement && element.isContentEditable) {
    element.focus();
    const range = document.createRange();
    range.selectNodeContents(element);
    range.collapse(false);
    const selection = window.getSelection();
    selection?.removeAllRanges();
    selection?.addRange(range);
    return true;
  }
  return false;
}

export type OptionMatch =
  | { kind: "found"; index: number; label: string }
  | { kind: "not-a-select" }
  | { kind: "no-match"; options: string[] };

/** Finds an option of a <select> by value, then by visible text (exact, then ignoring case). */
export function findOption(element: Element, wanted: string): OptionMatch {
  if (!(element instanceof HTMLSelectElement)) return { kind: "not-a-select" };
  const options = Array.from(element.options);
  const normalized = wanted.trim().toLowerCase();
  const match =
    options.find((option) => option.value === wanted) ??
    options.find((option) => option.text.trim() === wanted.trim()) ??
    options.find((option) => option.text.trim().toLowerCase() === normalized);
  if (match === undefined) return { kind: "no-match", options: options.map((option) => option.text.trim()) };
  return { kind: "found", index: match.index, label: match.text.trim() };
}
