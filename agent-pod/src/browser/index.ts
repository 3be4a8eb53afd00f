export * from "./actions.js";
export { BrowserSession, type BrowserSessionOptions } from "./browser-session.js";
export { DEFAULT_CHROMIUM_FLAGS } from "./chromium-flags.js";
export { formatPageState, type PageState, type TabInfo } from "./page-state.js";
export { PAGE_TEXT_MAX_CHARS } from "./page-text.js";
