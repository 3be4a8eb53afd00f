import type { Logger } from "pino";
import type { Config } from "../config.js";
import { ExternalRuntime } from "./external-runtime.js";
import type { RuntimeEvents, SessionRuntime } from "./session-runtime.js";

export interface RuntimeContext {
  config: Config;
  logger: Logger;
  events: RuntimeEvents;
  /** API base URL as agents reach it. */
  agentApiUrl: string;
  agentTokenSigningKey: string;
  /** The API's own environment, for the few host variables a child process needs (PATH, HOME...). */
  hostEnv: Record<string, string | undefined>;
}

export async function createRuntime(context: RuntimeContext): Promise<SessionRuntime> {
  switch (context.config.SESSION_RUNTIME) {
    case "external":
      return new ExternalRuntime();
    case "local": {
      const { createLocalRuntime } = await import("./local/local-runtime.js");
      return createLocalRuntime(context);
    }
    case "kubernetes": {
      const { createKubernetesRuntimeFromConfig } = await import("./kubernetes/from-config.js");
      return createKubernetesRuntimeFromConfig(context);
    }
  }
}
