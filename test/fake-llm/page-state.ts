/** Parser for the page state the agent sends the model (format: docs/agent-design.md). */

export interface PageElement {
  index: number;
  /** The element as listed, without its index: `<button type="submit">Sign in</button>`. */
  html: string;
  /** URL of the iframe the element is listed under, if any. */
  frameUrl?: string;
}

export interface PageTab {
  index: number;
  title: string;
  url: string;
  active: boolean;
}

export interface PageState {
  url: string;
  title: string;
  tabs: PageTab[];
  elements: PageElement[];
}

export const PAGE_STATE_MARKER = "Current URL:";

export function parsePageState(text: string): PageState {
  const url = /^Current URL: *(.*)$/m.exec(text)?.[1]?.trim();
  if (url === undefined) throw new Error(`no "${PAGE_STATE_MARKER}" line in:\n${text}`);
  return {
    url,
    title: /^Title: *(.*)$/m.exec(text)?.[1]?.trim() ?? "",
    tabs: parseTabs(/^Tabs: *(.*)$/m.exec(text)?.[1] ?? ""),
    elements: parseElements(text),
  };
}

function parseTabs(line: string): PageTab[] {
  const tabs: PageTab[] = [];
  for (const match of line.matchAll(/\[(\d+)\] (.*?) \((\S*)\)( \(active\))?(?: \| |$)/g)) {
    tabs.push({
      index: Number(match[1]),
      title: match[2] ?? "",
      url: match[3] ?? "",
      active: match[4] !== undefined,
    });
  }
  return tabs;
}

function parseElements(text: string): PageElement[] {
  const elements: PageElement[] = [];
  let frameUrl: string | undefined;
  for (const line of text.split("\n")) {
    const frame = /^\s*iframe (\S+):\s*$/.exec(line);
    if (frame) {
      frameUrl = frame[1];
      continue;
    }
    const element = /^(\s*)\[(\d+)\](<.*)$/.exec(line);
    if (!element) continue;
    if ((element[1] ?? "").length === 0) frameUrl = undefined;
    elements.push({
      index: Number(element[2]),
      html: element[3] ?? "",
      ...(frameUrl === undefined ? {} : { frameUrl }),
    });
  }
  return elements;
}

export function findElementIndex(state: PageState, pattern: RegExp | string): number {
  // A /g or /y pattern keeps lastIndex between test() calls; a copy without them does not.
  const regex = typeof pattern === "string" ? undefined : new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, ""));
  const found = state.elements.find((element) =>
    regex === undefined ? element.html.includes(pattern as string) : regex.test(element.html),
  );
  if (found) return found.index;
  const listing = state.elements.map((element) => `  [${element.index}]${element.html}`).join("\n");
  throw new Error(
    `no element matches ${String(pattern)} on ${state.url}; elements:\n${listing || "  (none)"}`,
  );
}
