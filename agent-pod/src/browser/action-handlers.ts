import type { ElementHandle } from "playwright-core";
import { abortableDelay } from "./abortable.js";
import type { ActionResult, BrowserAction, BrowserActionName } from "./actions.js";
import { findOption, focusAtEnd, scrollAround, scrollPageBy } from "./in-page/element-actions.js";
import type { TabList } from "./tabs.js";

/** A failure whose message is already the reason the model should read. */
export class ActionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ActionError";
  }
}

export interface ResolvedElement {
  handle: ElementHandle<Element>;
  /** `[3]<button type="submit">Sign in</button>`, as the model saw it. */
  label: string;
}

export interface ActionEnvironment {
  tabs: TabList;
  signal: AbortSignal;
  /** The element behind a page-state index; throws ActionError when it is gone or never was. */
  element(index: number): Promise<ResolvedElement>;
  readPageText(): Promise<string>;
  /** The action is of the kind that navigates or opens a tab (a link, a form): wait for it to begin. */
  expectNavigation(): void;
}

type Handler<N extends BrowserActionName> = (
  action: Extract<BrowserAction, { name: N }>,
  env: ActionEnvironment,
) => Promise<ActionResult>;

const ALLOWED_URL_PROTOCOLS = new Set(["http:", "https:"]);

const navigate: Handler<"navigate"> = async (action, env) => {
  let url: URL;
  try {
    url = new URL(action.url);
  } catch {
    throw new ActionError(`"${action.url}" is not an absolute URL`);
  }
  // file:, chrome: and the like would reach the pod's own files and browser internals.
  if (!ALLOWED_URL_PROTOCOLS.has(url.protocol) && url.href !== "about:blank") {
    throw new ActionError(`Only http and https URLs can be opened, not ${url.protocol}`);
  }
  const page = env.tabs.active;
  const response = await page.goto(url.href, { waitUntil: "domcontentloaded" });
  const httpStatus = response?.status() ?? null;
  return {
    ok: true,
    summary: `Opened ${page.url()}${httpStatus === null ? "" : ` (HTTP ${httpStatus})`}`,
    httpStatus,
  };
};

/** Links and form controls navigate or open tabs when clicked; other elements rarely do. */
function startsNavigation(element: Element): boolean {
  return element.closest("a[href], area[href], form") !== null;
}

const click: Handler<"click"> = async (action, env) => {
  const element = await env.element(action.index);
  if (await element.handle.evaluate(startsNavigation)) env.expectNavigation();
  await element.handle.click();
  return { ok: true, summary: `Clicked ${element.label}` };
};

const type: Handler<"type"> = async (action, env) => {
  const element = await env.element(action.index);
  if (action.clear) {
    await element.handle.fill(action.text);
  } else {
    await element.handle.scrollIntoViewIfNeeded();
    if (!(await element.handle.evaluate(focusAtEnd))) {
      throw new ActionError(`${element.label} does not take typed text`);
    }
    await env.tabs.active.keyboard.insertText(action.text);
  }
  // The text is never echoed: by now secret placeholders have been replaced by real values.
  const characters = `${action.text.length} character${action.text.length === 1 ? "" : "s"}`;
  return { ok: true, summary: `Typed ${characters} into ${element.label}` };
};

const selectOption: Handler<"select_option"> = async (action, env) => {
  const element = await env.element(action.index);
  const match = await element.handle.evaluate(findOption, action.option);
  if (match.kind === "not-a-select") {
    throw new ActionError(`${element.label} is not a <select>; click it and then click the option instead`);
  }
  if (match.kind === "no-match") {
    const options = match.options.join("|");
    throw new ActionError(`${element.label} has no option "${action.option}"; its options are ${options}`);
  }
  await element.handle.selectOption({ index: match.index });
  return { ok: true, summary: `Selected "${match.label}" in ${element.label}` };
};

const pressKeys: Handler<"press_keys"> = async (action, env) => {
  if (/\bEnter\b/.test(action.keys)) env.expectNavigation();
  await env.tabs.active.keyboard.press(action.keys);
  return { ok: true, summary: `Pressed ${action.keys}` };
};

const scroll: Handler<"scroll"> = async (action, env) => {
  const request = { direction: action.direction, pages: action.pages };
  let moved: number;
  let where = "the page";
  if (action.index === undefined) {
    moved = await env.tabs.active.mainFrame().evaluate(scrollPageBy, request);
  } else {
    const element = await env.element(action.index);
    moved = await element.handle.evaluate(scrollAround, request);
    where = `around ${element.label}`;
  }
  if (Math.round(moved) === 0) {
    const edge = action.direction === "down" ? "bottom" : "top";
    return { ok: true, summary: `Did not scroll ${where}: already at the ${edge}` };
  }
  return { ok: true, summary: `Scrolled ${where} ${action.direction} by ${Math.abs(Math.round(moved))} px` };
};

const goBack: Handler<"go_back"> = async (_action, env) => {
  const page = env.tabs.active;
  const before = page.url();
  const response = await page.goBack({ waitUntil: "domcontentloaded" });
  if (response === null && page.url() === before) {
    throw new ActionError("There is no earlier page in this tab");
  }
  const httpStatus = response?.status() ?? null;
  return { ok: true, summary: `Went back to ${page.url()}`, httpStatus };
};

function noSuchTab(tabIndex: number, env: ActionEnvironment): ActionError {
  return new ActionError(`There is no tab [${tabIndex}]; open tabs are [0] to [${env.tabs.count - 1}]`);
}

const switchTab: Handler<"switch_tab"> = async (action, env) => {
  if (!(await env.tabs.activate(action.tabIndex))) throw noSuchTab(action.tabIndex, env);
  return { ok: true, summary: `Switched to tab [${action.tabIndex}] (${env.tabs.active.url()})` };
};

const closeTab: Handler<"close_tab"> = async (action, env) => {
  if (!(await env.tabs.close(action.tabIndex))) throw noSuchTab(action.tabIndex, env);
  const active = env.tabs.active;
  return {
    ok: true,
    summary: `Closed tab [${action.tabIndex}]; the active tab is [${env.tabs.indexOf(active)}] (${active.url()})`,
  };
};

const wait: Handler<"wait"> = async (action, env) => {
  await abortableDelay(action.seconds * 1000, env.signal);
  return { ok: true, summary: `Waited ${action.seconds} s` };
};

const readPage: Handler<"read_page"> = async (_action, env) => {
  const text = await env.readPageText();
  return {
    ok: true,
    summary: `Read the visible text of ${env.tabs.active.url()} (${text.length} characters)`,
    content: text,
  };
};

export function runAction(action: BrowserAction, env: ActionEnvironment): Promise<ActionResult> {
  switch (action.name) {
    case "navigate":
      return navigate(action, env);
    case "click":
      return click(action, env);
    case "type":
      return type(action, env);
    case "select_option":
      return selectOption(action, env);
    case "press_keys":
      return pressKeys(action, env);
    case "scroll":
      return scroll(action, env);
    case "go_back":
      return goBack(action, env);
    case "switch_tab":
      return switchTab(action, env);
    case "close_tab":
      return closeTab(action, env);
    case "wait":
      return wait(action, env);
    case "read_page":
      return readPage(action, env);
  }
}

/** Actions after which the page may navigate or open a tab by itself. */
export function mayChangePage(action: BrowserAction): boolean {
  return action.name === "click" || action.name === "select_option" || action.name === "press_keys";
}

/** What the action was doing, for the start of a failure summary. */
export function attemptDescription(action: BrowserAction, labelOf: (index: number) => string): string {
  switch (action.name) {
    case "navigate":
      return `Could not open ${action.url}`;
    case "click":
      return `Could not click ${labelOf(action.index)}`;
    case "type":
      return `Could not type into ${labelOf(action.index)}`;
    case "select_option":
      return `Could not select "${action.option}" in ${labelOf(action.index)}`;
    case "press_keys":
      return `Could not press ${action.keys}`;
    case "scroll":
      return `Could not scroll ${action.direction}`;
    case "go_back":
      return "Could not go back";
    case "switch_tab":
      return `Could not switch to tab [${action.tabIndex}]`;
    case "close_tab":
      return `Could not close tab [${action.tabIndex}]`;
    case "wait":
      return "Could not wait";
    case "read_page":
      return "Could not read the page";
  }
}
