import type { BrowserAction } from "../browser/actions.js";

/** Element lines of a page state by index: `<button type="submit">Sign in</button>`. */
export function elementsByIndex(elementsText: string): Map<number, string> {
  const elements = new Map<number, string>();
  for (const match of elementsText.matchAll(/^\s*\[(\d+)\](<.*)$/gm)) {
    elements.set(Number(match[1]), match[2] ?? "");
  }
  return elements;
}

const LABEL_ATTRIBUTES = ["aria-label", "placeholder", "name", "title", "alt", "href"];

/** A short human name for an element line: its text, else a naming attribute, else its tag. */
export function elementLabel(html: string): string {
  const text = /^<[^>]*>(.*)<\/[^>]+>$/.exec(html)?.[1]?.trim();
  if (text) return truncate(text, 60);
  for (const attribute of LABEL_ATTRIBUTES) {
    const value = new RegExp(`\\s${attribute}="([^"]*)"`).exec(html)?.[1]?.trim();
    if (value) return truncate(value.replace(/&quot;/g, '"').replace(/&amp;/g, "&"), 60);
  }
  return /^<([\w-]+)/.exec(html)?.[1] ?? "element";
}

/** One line a person reads in the session's messages: "Clicking element #5: Sign in". */
export function describeAction(action: BrowserAction, elements: ReadonlyMap<number, string>): string {
  const element = (index: number): string => {
    const html = elements.get(index);
    return html === undefined ? `element #${index}` : `element #${index}: ${elementLabel(html)}`;
  };
  switch (action.name) {
    case "navigate":
      return `Navigating to ${action.url}`;
    case "click":
      return `Clicking ${element(action.index)}`;
    case "type":
      return `Typing "${truncate(action.text, 60)}" into ${element(action.index)}`;
    case "select_option":
      return `Selecting "${action.option}" in ${element(action.index)}`;
    case "press_keys":
      return `Pressing ${action.keys}`;
    case "scroll": {
      const amount = `${action.pages} page${action.pages === 1 ? "" : "s"}`;
      return `Scrolling ${action.direction} ${amount}${action.index === undefined ? "" : ` in ${element(action.index)}`}`;
    }
    case "go_back":
      return "Going back";
    case "switch_tab":
      return `Switching to tab ${action.tabIndex}`;
    case "close_tab":
      return `Closing tab ${action.tabIndex}`;
    case "wait":
      return `Waiting ${action.seconds} s`;
    case "read_page":
      return "Reading the page";
  }
}

export function truncate(text: string, max: number): string {
  const oneLine = text.replace(/\s+/g, " ").trim();
  return oneLine.length <= max ? oneLine : `${oneLine.slice(0, max - 1)}…`;
}
