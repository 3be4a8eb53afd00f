/// <reference lib="dom" />
// Evaluated inside page frames by Playwright, which serializes each exported function: every one
// must be self-contained (no imports, nothing from module scope) and use only what a page offers.

import type { FrameSlot } from "./frame-registry.js";

/** One element as the page sees it; formatting into a line happens in Node. */
export interface RawElement {
  tag: string;
  /** Whitelisted attributes in display order; value null renders as a boolean attribute. */
  attributes: Array<[string, string | null]>;
  text: string;
  isVoid: boolean;
}

export interface ElementSnapshot {
  items: Array<RawElement | FrameSlot>;
  scroll: { abovePx: number; belowPx: number };
}

/**
 * Lists the visible interactive elements of this frame (and its open shadow roots) in document
 * order, with a slot where each visible child frame sits. The elements and frame elements are kept
 * on `window[Symbol.for(registryKey)]` so actions and frame placement can find them again.
 */
export function snapshotInteractiveElements(registryKey: string): ElementSnapshot {
  const INTERACTIVE_ROLES = new Set([
    "button", "link", "checkbox", "radio", "switch", "tab", "menuitem", "menuitemcheckbox",
    "menuitemradio", "option", "combobox", "textbox", "searchbox", "slider", "spinbutton", "treeitem",
  ]);
  const SKIPPED_TAGS = new Set(["script", "style", "noscript", "template", "head", "svg"]);
  const VOID_TAGS = new Set(["input", "img"]);
  const TEXTUAL_VALUE_TYPES = new Set([
    "text", "search", "email", "url", "tel", "number", "date", "datetime-local", "month", "week",
    "time", "color", "range", "submit", "button", "reset",
  ]);
  const MAX_TEXT = 100;
  const MAX_ATTRIBUTE = 150;

  const elements: Element[] = [];
  const frames: Element[] = [];
  const items: Array<RawElement | FrameSlot> = [];

  const oneLine = (value: string, max: number): string => {
    const collapsed = value.replace(/\s+/g, " ").trim();
    return collapsed.length > max ? `${collapsed.slice(0, max - 1)}…` : collapsed;
  };

  const isInteractive = (el: Element, tag: string): boolean => {
    if (tag === "input") return (el as HTMLInputElement).type !== "hidden";
    if (tag === "button" || tag === "select" || tag === "textarea" || tag === "summary") return true;
    if (tag === "a") return el.hasAttribute("href");
    if (tag === "label") return el.hasAttribute("for");
    const role = el.getAttribute("role");
    if (role !== null && INTERACTIVE_ROLES.has(role)) return true;
    if (el.hasAttribute("onclick")) return true;
    if (el instanceof HTMLElement) {
      if (el.isContentEditable && !el.parentElement?.isContentEditable) return true;
      const tabindex = el.getAttribute("tabindex");
      if (tabindex !== null && Number(tabindex) >= 0) return true;
    }
    return false;
  };

  const isVisible = (el: Element): boolean => {
    if (!el.checkVisibility({ visibilityProperty: true })) return false;
    for (const rect of Array.from(el.getClientRects())) {
      if (rect.width > 0 && rect.height > 0) return true;
    }
    return false;
  };

  const textOf = (el: Element, tag: string): string => {
    if (tag === "input") return "";
    if (el instanceof HTMLSelectElement) return el.selectedOptions[0]?.text ?? "";
    if (el instanceof HTMLTextAreaElement) return el.value;
    const text = el instanceof HTMLElement ? el.innerText : (el.textContent ?? "");
    if (text.trim() !== "") return text;
    return el.querySelector("img[alt]")?.getAttribute("alt") ?? "";
  };

  const attributesOf = (el: Element, tag: string): Array<[string, string | null]> => {
    const attributes: Array<[string, string | null]> = [];
    const add = (name: string, value: string | null | undefined): void => {
      if (value !== null && value !== undefined && value !== "") {
        attributes.push([name, oneLine(value, MAX_ATTRIBUTE)]);
      }
    };
    const input = el instanceof HTMLInputElement ? el : null;
    add("type", input ? input.type : el.getAttribute("type"));
    add("name", el.getAttribute("name"));
    add("placeholder", el.getAttribute("placeholder"));
    // Password values are never shown: the model has no use for them and they must not leak.
    if (input && TEXTUAL_VALUE_TYPES.has(input.type)) add("value", input.value);
    add("aria-label", el.getAttribute("aria-label"));
    add("role", el.getAttribute("role"));
    if (tag === "a") add("href", el.getAttribute("href"));
    add("title", el.getAttribute("title"));
    add("alt", el.getAttribute("alt"));
    const checked = input && (input.type === "checkbox" || input.type === "radio")
      ? input.checked
      : el.getAttribute("aria-checked") === "true";
    if (checked) attributes.push(["checked", null]);
    const disabled = ("disabled" in el && el.disabled === true) || el.getAttribute("aria-disabled") === "true";
    if (disabled) attributes.push(["disabled", null]);
    const isTextControl = el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement;
    if (el instanceof HTMLElement && el.isContentEditable && !isTextControl) attributes.push(["contenteditable", null]);
    if (el instanceof HTMLSelectElement) {
      add("options", Array.from(el.options, (option) => option.text.trim()).join("|"));
    }
    return attributes;
  };

  const visitChildren = (parent: Element | ShadowRoot | Document): void => {
    for (const child of Array.from(parent.children)) visit(child);
  };

  const visit = (el: Element): void => {
    const tag = el.tagName.toLowerCase();
    if (SKIPPED_TAGS.has(tag)) return;
    if (tag === "iframe" || tag === "frame") {
      if (isVisible(el)) {
        items.push({ frameSlot: frames.length });
        frames.push(el);
      }
      return;
    }
    if (isInteractive(el, tag) && isVisible(el)) {
      elements.push(el);
      items.push({
        tag,
        attributes: attributesOf(el, tag),
        text: VOID_TAGS.has(tag) ? "" : oneLine(textOf(el, tag), MAX_TEXT),
        isVoid: VOID_TAGS.has(tag),
      });
    }
    if (el.shadowRoot) visitChildren(el.shadowRoot);
    visitChildren(el);
  };

  visitChildren(document);
  Reflect.set(window, Symbol.for(registryKey), { elements, frames });

  const scroller = document.scrollingElement ?? document.documentElement;
  const abovePx = Math.round(window.scrollY);
  const belowPx = Math.max(0, Math.round(scroller.scrollHeight - window.scrollY - window.innerHeight));
  return { items, scroll: { abovePx, belowPx } };
}
