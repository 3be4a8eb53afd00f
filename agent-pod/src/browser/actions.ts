import { z } from "zod";

/**
 * The browser actions the model can call, one OpenAI function tool each (name = `name`).
 * `index` refers to the [index] of an interactive element in the latest page state.
 */
export const NavigateAction = z.object({
  name: z.literal("navigate"),
  url: z.string().describe("Absolute URL to open in the current tab"),
});
export const ClickAction = z.object({
  name: z.literal("click"),
  index: z.number().int().nonnegative().describe("Element index from the page state"),
});
export const TypeAction = z.object({
  name: z.literal("type"),
  index: z.number().int().nonnegative(),
  text: z.string().describe("Text to type; secrets as <secret>key</secret> placeholders"),
  clear: z.boolean().default(true).describe("Clear the field before typing"),
});
export const SelectOptionAction = z.object({
  name: z.literal("select_option"),
  index: z.number().int().nonnegative(),
  option: z.string().describe("Visible text or value of the option to select"),
});
export const PressKeysAction = z.object({
  name: z.literal("press_keys"),
  keys: z.string().describe("Playwright key combination, e.g. Enter, Control+A, Tab"),
});
export const ScrollAction = z.object({
  name: z.literal("scroll"),
  direction: z.enum(["down", "up"]),
  pages: z.number().positive().max(10).default(1).describe("How many viewport heights"),
  index: z.number().int().nonnegative().optional().describe("Scroll inside this element instead of the page"),
});
export const GoBackAction = z.object({ name: z.literal("go_back") });
export const SwitchTabAction = z.object({
  name: z.literal("switch_tab"),
  tabIndex: z.number().int().nonnegative(),
});
export const CloseTabAction = z.object({
  name: z.literal("close_tab"),
  tabIndex: z.number().int().nonnegative(),
});
export const WaitAction = z.object({
  name: z.literal("wait"),
  seconds: z.number().positive().max(30).default(1),
});
export const ReadPageAction = z.object({
  name: z.literal("read_page"),
});

export const BrowserAction = z.discriminatedUnion("name", [
  NavigateAction,
  ClickAction,
  TypeAction,
  SelectOptionAction,
  PressKeysAction,
  ScrollAction,
  GoBackAction,
  SwitchTabAction,
  CloseTabAction,
  WaitAction,
  ReadPageAction,
]);
export type BrowserAction = z.infer<typeof BrowserAction>;
export type BrowserActionName = BrowserAction["name"];

export interface ActionResult {
  ok: boolean;
  /** One line for the model and the session messages: what happened. */
  summary: string;
  /** Longer content the model should see next step (page text of read_page), if any. */
  content?: string;
  /** Upstream HTTP status where the action produced one (navigation), else null. */
  httpStatus?: number | null;
}
