import { z } from "zod";
import { ModelCatalogInput } from "./models/catalog-schema.js";

const booleanFlag = z.enum(["true", "false", "1", "0"]).transform((value) => value === "true" || value === "1");
const positiveInt = z.coerce.number().int().positive();

/**
 * Every setting of the API service. Parsed once at start-up; nothing else reads process.env.
 * docs/configuration.md documents each variable; keep the two in step.
 */
export const ConfigSchema = z
  .object({
    HOST: z.string().default("127.0.0.1"),
    PORT: z.coerce.number().int().min(0).max(65535).default(8080),
    LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
    /** Postgres URL. When unset, an embedded Postgres keeps its data in DATA_DIR/postgres. */
    DATABASE_URL: z.string().url().optional(),
    DATA_DIR: z.string().default(".data"),
    DATABASE_POOL_SIZE: positiveInt.default(10),
    /** Directory holding Prisma's migration folders; the default finds the repository's. */
    MIGRATIONS_DIR: z.string().optional(),
    /** Maximum request body in bytes for every route but the storage-state import. */
    BODY_LIMIT_BYTES: positiveInt.default(1024 * 1024),
    TRUST_PROXY: booleanFlag.default(false),

    BOOTSTRAP_API_KEY: z.string().min(16, "BOOTSTRAP_API_KEY must be at least 16 characters").optional(),
    BOOTSTRAP_TENANT: z.string().min(1).default("default"),
    AUTH_FAILURE_LIMIT: positiveInt.default(10),
    AUTH_FAILURE_WINDOW_SECONDS: positiveInt.default(60),

    /** Model catalog as JSON text, or a path to a JSON file; see docs/configuration.md. */
    MODEL_CATALOG: z.string().optional(),
    MODEL_CATALOG_FILE: z.string().optional(),
    DEFAULT_MODEL: z.string().min(1).default("gpt-4.1-mini"),
    OPENAI_BASE_URL: z.string().url().default("https://api.openai.com/v1"),
    OPENAI_API_KEY: z.string().optional(),

    SESSION_RUNTIME: z.enum(["local", "kubernetes", "external"]).default("local"),
    MAX_STEPS: positiveInt.default(100),
    SESSION_MAX_DURATION_SECONDS: positiveInt.default(3600),
    SESSION_IDLE_TIMEOUT_SECONDS: positiveInt.default(900),
    /** Key from which each session's agent credential is derived; shared with the operator. */
    AGENT_TOKEN_SIGNING_KEY: z.string().min(32, "AGENT_TOKEN_SIGNING_KEY must be at least 32 characters").optional(),
    /** API base URL as agents reach it; defaults to http://HOST:PORT. */
    AGENT_API_URL: z.string().url().optional(),

    /** Local runtime: sessions whose agents run at once; more wait in order. */
    MAX_CONCURRENT_SESSIONS: positiveInt.default(4),
    /** Local runtime: the agent command; default `node <repo>/agent-pod/dist/main.js`. */
    AGENT_COMMAND: z.string().optional(),
    CHROMIUM_PATH: z.string().default("/usr/bin/chromium"),
    CHROMIUM_FLAGS: z.string().default(""),

    /** Kubernetes runtime. */
    KUBE_NAMESPACE: z.string().default("default"),
    AGENT_IMAGE: z.string().default("browser-agents/agent-pod:latest"),
    AGENT_CPU_REQUEST: z.string().default("500m"),
    AGENT_CPU_LIMIT: z.string().default("2"),
    AGENT_MEMORY_REQUEST: z.string().default("1Gi"),
    AGENT_MEMORY_LIMIT: z.string().default("2Gi"),
  })
  .superRefine((config, ctx) => {
    if (config.SESSION_RUNTIME === "kubernetes" && !config.AGENT_TOKEN_SIGNING_KEY) {
      ctx.addIssue({
        code: "custom",
        path: ["AGENT_TOKEN_SIGNING_KEY"],
        message: "is required with SESSION_RUNTIME=kubernetes (the operator must hold the same key)",
      });
    }
    if (config.MODEL_CATALOG && config.MODEL_CATALOG_FILE) {
      ctx.addIssue({ code: "custom", path: ["MODEL_CATALOG"], message: "set MODEL_CATALOG or MODEL_CATALOG_FILE, not both" });
    }
  });

export type Config = z.infer<typeof ConfigSchema>;

export class ConfigError extends Error {}

export function parseConfig(env: Record<string, string | undefined>): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ""));
  const result = ConfigSchema.safeParse(present);
  if (!result.success) {
    const lines = result.error.issues.map((issue) => `  ${issue.path.join(".") || "(config)"}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration; set these environment variables correctly:\n${lines.join("\n")}`);
  }
  return result.data;
}

export { ModelCatalogInput };
