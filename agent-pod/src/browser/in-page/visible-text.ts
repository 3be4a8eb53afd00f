/// <reference lib="dom" />
// Evaluated inside page frames by Playwright, which serializes each exported function: every one
// must be self-contained (no imports, nothing from module scope) and use only what a page offers.

import type { FrameSlot } from "./frame-registry.js";

export interface TextSnapshot {
  items: Array<string | FrameSlot>;
}

/**
 * The visible text of this frame and its open shadow roots, in document order, with a slot where
 * each visible child frame sits. Block boundaries become line breaks.
 */
export function snapshotVisibleText(args: { registryKey: string; maxChars: number }): TextSnapshot {
  // Form controls are described by the page state; their option and default texts would only add noise.
  const SKIPPED_TAGS = new Set(["script", "style", "noscript", "template", "head", "select", "textarea", "input"]);
  const frames: Element[] = [];
  const items: Array<string | FrameSlot> = [];
  let collected = 0;

  const push = (text: string): void => {
    items.push(text);
    collected += text.length;
  };

  const visitChildren = (parent: Node): void => {
    for (const child of Array.from(parent.childNodes)) {
      if (collected >= args.maxChars) return;
      visit(child);
    }
  };

  const visit = (node: Node): void => {
    if (node.nodeType === Node.TEXT_NODE) {
      const parent = node.parentElement;
      const text = node.textContent ?? "";
      if (parent && text.trim() !== "" && parent.checkVisibility({ visibilityProperty: true })) push(text);
      return;
    }
    if (!(node instanceof Element)) return;
    const tag = node.tagName.toLowerCase();
    if (SKIPPED_TAGS.has(tag) || !node.checkVisibility()) return;
    if (tag === "iframe" || tag === "frame") {
      items.push({ frameSlot: frames.length });
      frames.push(node);
      return;
    }
    if (tag === "br") {
      push("\n");
      return;
    }
    const display = getComputedStyle(node).display;
    // Blocks break lines; inline-blocks (buttons, badges) at least separate words.
    const separator = display === "inline" || display === "contents" ? "" : display.startsWith("inline") ? " " : "\n";
    push(separator);
    if (node.shadowRoot) visitChildren(node.shadowRoot);
    visitChildren(node);
    push(separator);
  };

  if (document.body) visitChildren(document.body);
  Reflect.set(window, Symbol.for(args.registryKey), { frames });
  return { items };
}
