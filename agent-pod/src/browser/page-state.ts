import type { Frame, Page } from "playwright-core";
import { collectFrameTree, type PlacedItem } from "./frame-tree.js";
import { snapshotInteractiveElements, type ElementSnapshot, type RawElement } from "./in-page/interactive-elements.js";

export const ELEMENT_REGISTRY_KEY = "agent-pod.interactive-elements";

export interface TabInfo {
  index: number;
  title: string;
  url: string;
  active: boolean;
}

/** The page as the model sees it (docs/agent-design.md, "Page state format"). */
export interface PageState {
  url: string;
  title: string;
  tabs: TabInfo[];
  scroll: { abovePx: number; belowPx: number };
  /** The formatted interactive-element lines, one per element plus iframe headers. */
  elementsText: string;
  elementCount: number;
}

/** Where the element behind a page-state index lives, valid until the next snapshot. */
export interface ElementReference {
  frame: Frame;
  indexInFrame: number;
  /** The element's line without its index, e.g. `<button type="submit">Sign in</button>`. */
  description: string;
}

export interface InteractiveElements {
  elementsText: string;
  references: ElementReference[];
  scroll: { abovePx: number; belowPx: number };
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, "&amp;").replace(/"/g, "&quot;");
}

export function formatElement(element: RawElement): string {
  const attributes = element.attributes
    .map(([name, value]) => (value === null ? name : `${name}="${escapeAttribute(value)}"`))
    .join(" ");
  const open = attributes === "" ? `<${element.tag}>` : `<${element.tag} ${attributes}>`;
  return element.isVoid ? open : `${open}${element.text}</${element.tag}>`;
}

/** Numbers the elements of every frame in document order and formats their lines. */
export async function snapshotElements(page: Page): Promise<InteractiveElements> {
  const tree = await collectFrameTree<RawElement, ElementSnapshot>(page, ELEMENT_REGISTRY_KEY, (frame) =>
    frame.evaluate(snapshotInteractiveElements, ELEMENT_REGISTRY_KEY),
  );
  const references: ElementReference[] = [];
  const lines: string[] = [];
  const items = withoutEmptyFrameHeaders(tree.items);
  for (const placed of items) {
    const indent = "  ".repeat(placed.depth);
    if (placed.kind === "frame") {
      lines.push(`${indent}iframe ${placed.url}:`);
      continue;
    }
    const description = formatElement(placed.item);
    lines.push(`${indent}[${references.length}]${description}`);
    references.push({ frame: placed.frame, indexInFrame: placed.indexInFrame, description });
  }
  return { elementsText: lines.join("\n"), references, scroll: tree.mainSnapshot.scroll };
}

function withoutEmptyFrameHeaders<T>(items: Array<PlacedItem<T>>): Array<PlacedItem<T>> {
  return items.filter((placed, position) => {
    if (placed.kind !== "frame") return true;
    for (const later of items.slice(position + 1)) {
      if (later.depth < placed.depth) return false;
      if (later.kind === "item") return later.depth >= placed.depth;
      if (later.depth === placed.depth) return false;
    }
    return false;
  });
}

export function formatTabs(tabs: TabInfo[]): string {
  return tabs
    .map((tab) => `[${tab.index}] ${tab.title} (${tab.url})${tab.active ? " (active)" : ""}`)
    .join(" | ");
}

/** The whole page-state block the model reads. */
export function formatPageState(state: PageState): string {
  return [
    `Current URL: ${state.url}`,
    `Title: ${state.title}`,
    `Tabs: ${formatTabs(state.tabs)}`,
    `Scroll: ${state.scroll.abovePx} px above, ${state.scroll.belowPx} px below`,
    "Interactive elements:",
    state.elementCount === 0 ? "(none)" : state.elementsText,
  ].join("\n");
}
