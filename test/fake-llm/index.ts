export { startFakeLlm } from "./fake-llm-server.js";
export type { FakeLlm, FakeLlmOptions, RecordedRequest, RequestOutcome } from "./fake-llm-server.js";
export type * from "./script-types.js";
export type { PageElement, PageState, PageTab } from "./page-state.js";
export { parsePageState } from "./page-state.js";
export { estimateTokens } from "./chat-completion.js";
export * from "./replies.js";
export * from "./scripts.js";
