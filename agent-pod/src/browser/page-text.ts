import type { Page } from "playwright-core";
import { collectFrameTree } from "./frame-tree.js";
import { snapshotVisibleText, type TextSnapshot } from "./in-page/visible-text.js";

export const PAGE_TEXT_MAX_CHARS = 20_000;
const TEXT_REGISTRY_KEY = "agent-pod.visible-text";

/** Visible text of the page, its iframes and open shadow roots, in document order, bounded. */
export async function readVisibleText(page: Page, maxChars = PAGE_TEXT_MAX_CHARS): Promise<string> {
  const tree = await collectFrameTree<string, TextSnapshot>(page, TEXT_REGISTRY_KEY, (frame) =>
    frame.evaluate(snapshotVisibleText, { registryKey: TEXT_REGISTRY_KEY, maxChars }),
  );
  const raw = tree.items.map((placed) => (placed.kind === "item" ? placed.item : "\n")).join("");
  const text = tidy(raw);
  if (text.length <= maxChars) return text;
  return `${text.slice(0, maxChars)}\n[page text truncated at ${maxChars} characters]`;
}

function tidy(raw: string): string {
  return raw
    .split("\n")
    .map((line) => line.replace(/[ \t\u00a0]+/g, " ").trim())
    .filter((line) => line !== "")
    .join("\n");
}
