import { hostname } from "node:os";
import { z } from "zod";

const booleanFlag = z.enum(["true", "false", "1", "0"]).transform((value) => value === "true" || value === "1");
const positiveInt = z.coerce.number().int().positive();
const quantity = z.string().regex(/^[0-9]+(\.[0-9]+)?(m|k|Ki|M|Mi|G|Gi|T|Ti)?$/, "a Kubernetes quantity such as 500m or 2Gi");
const jsonStringArray = z.string().transform((text, ctx) => {
  try {
    return z.array(z.string()).parse(JSON.parse(text));
  } catch {
    ctx.addIssue({ code: "custom", message: 'a JSON array of strings, e.g. ["node","agent-pod/dist/main.js"]' });
    return z.NEVER;
  }
});

/**
 * Every setting of the operator. Parsed once at start-up; nothing else reads process.env.
 * operator/README.md documents each variable; keep the two in step.
 */
export const OperatorConfigSchema = z.object({
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** The one namespace whose AgentSessions (and their pods and secrets) this operator manages. */
  WATCH_NAMESPACE: z.string().min(1).default("default"),
  /** Shared with the API: each pod's AGENT_TOKEN is derived from it and the session id. */
  AGENT_TOKEN_SIGNING_KEY: z.string().min(32, "AGENT_TOKEN_SIGNING_KEY must be at least 32 characters"),

  LEADER_ELECTION: booleanFlag.default(true),
  LEADER_ELECTION_NAMESPACE: z.string().min(1).optional(),
  LEADER_ELECTION_LEASE_NAME: z.string().min(1).default("browser-agents-operator"),
  LEASE_DURATION_SECONDS: positiveInt.default(15),
  LEASE_RENEW_DEADLINE_SECONDS: positiveInt.default(10),
  LEASE_RETRY_PERIOD_SECONDS: positiveInt.default(2),
  /** This replica's name in the Lease; the chart sets it from the pod name. */
  POD_NAME: z.string().min(1).default(hostname()),

  METRICS_HOST: z.string().default("0.0.0.0"),
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(8081),

  RECONCILE_CONCURRENCY: positiveInt.default(4),
  RETRY_BASE_DELAY_MS: positiveInt.default(500),
  RETRY_MAX_DELAY_MS: positiveInt.default(300_000),
  /** Every AgentSession is looked at again at least this often, events or not. */
  RESYNC_INTERVAL_SECONDS: positiveInt.default(300),
  /** Server-side lifetime of one watch request; the watch is re-opened after it. */
  WATCH_TIMEOUT_SECONDS: positiveInt.default(300),
  /** How often pods and secrets whose AgentSession is gone are deleted. */
  SWEEP_INTERVAL_SECONDS: positiveInt.default(60),

  /** The agent container's command and args; the image's working directory holds agent-pod/. */
  AGENT_COMMAND: jsonStringArray.default(["node", "agent-pod/dist/main.js"]),
  AGENT_ARGS: jsonStringArray.default([]),
  AGENT_IMAGE_PULL_POLICY: z.enum(["Always", "IfNotPresent", "Never"]).default("IfNotPresent"),
  AGENT_RUNTIME_CLASS_NAME: z.string().min(1).optional(),
  AGENT_RUN_AS_USER: z.coerce.number().int().min(1).default(10001),
  AGENT_RUN_AS_GROUP: z.coerce.number().int().min(1).default(10001),
  /** The image's HOME; an emptyDir is mounted there because the root filesystem is read-only. */
  AGENT_HOME_DIR: z.string().startsWith("/").default("/home/agent"),
  AGENT_CHROMIUM_PATH: z.string().default("/usr/bin/chromium"),
  AGENT_CHROMIUM_FLAGS: z.string().default(""),
  AGENT_LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace"]).default("info"),
  AGENT_DEVTOOLS_PORT: z.coerce.number().int().min(1).max(65535).default(9222),
  AGENT_CPU_REQUEST: quantity.default("500m"),
  AGENT_CPU_LIMIT: quantity.default("2"),
  AGENT_MEMORY_REQUEST: quantity.default("1Gi"),
  AGENT_MEMORY_LIMIT: quantity.default("2Gi"),
  AGENT_SHM_SIZE: quantity.default("1Gi"),
  AGENT_TMP_SIZE: quantity.default("1Gi"),
  AGENT_HOME_SIZE: quantity.default("1Gi"),
  /** Used when an AgentSession names none: time to save the profile after SIGTERM. */
  AGENT_TERMINATION_GRACE_PERIOD_SECONDS: z.coerce.number().int().min(0).default(30),
});

export type OperatorConfig = z.infer<typeof OperatorConfigSchema>;

export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

/** The message names each bad variable but never echoes a value: the signing key is one of them. */
export function parseOperatorConfig(env: Record<string, string | undefined>): OperatorConfig {
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ""));
  const parsed = OperatorConfigSchema.safeParse(present);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${issue.path.join(".") || "(environment)"}: ${issue.message}`);
  throw new ConfigError(`Invalid operator configuration: ${problems.join("; ")}`);
}
