import { AgentEnvironment } from "@browser-agents/protocol";

export type AgentConfig = AgentEnvironment;

export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

/**
 * Parses the agent's environment once, at start-up. The message names each bad variable but
 * never echoes a value, because AGENT_TOKEN is one of them.
 */
export function parseConfig(env: Record<string, string | undefined>): AgentConfig {
  const parsed = AgentEnvironment.safeParse(env);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${issue.path.join(".") || "(environment)"}: ${issue.message}`);
  throw new ConfigError(`Invalid agent environment: ${problems.join("; ")}`);
}
