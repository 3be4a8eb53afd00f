export * from "./storage-state.js";
export * from "./report-protocol.js";
export * from "./agent-environment.js";
export * from "./agent-session-resource.js";
export * from "./agent-token.js";
