import { z } from "zod";

/**
 * The environment contract of an agent process, identical for a local process and a pod.
 * The local runtime and the operator both build it from this one description.
 */
export const AgentEnvironment = z.object({
  /** Base URL of the API as reachable from the agent, e.g. http://127.0.0.1:8080 */
  AGENT_API_URL: z.url(),
  AGENT_SESSION_ID: z.string().min(1),
  /** The session's own credential; accepted only on the agent routes of this session. */
  AGENT_TOKEN: z.string().min(1),
  CHROMIUM_PATH: z.string().default("/usr/bin/chromium"),
  /** Extra Chromium flags, space separated, added to the built-in safe set. */
  CHROMIUM_FLAGS: z.string().default(""),
  /** Port for Chromium's DevTools endpoint (live view); 0 picks a free one. */
  DEVTOOLS_PORT: z.coerce.number().int().min(0).max(65535).default(0),
  /** Address the DevTools endpoint binds to: loopback locally, 0.0.0.0 in a pod. */
  DEVTOOLS_ADDRESS: z.string().default("127.0.0.1"),
  /** Exit when standard input closes: the local runtime's guarantee against orphan processes. */
  AGENT_EXIT_WITH_STDIN: z.enum(["true", "false"]).default("false").transform((v) => v === "true"),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace"]).default("info"),
});
export type AgentEnvironment = z.infer<typeof AgentEnvironment>;
