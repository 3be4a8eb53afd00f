import { describe, expect, it } from "vitest";
import { ConfigError, parseOperatorConfig } from "./config.js";

const key = "a-signing-key-that-is-long-enough-0123";

describe("parseOperatorConfig", () => {
  it("needs only the signing key; everything else has a default", () => {
    const config = parseOperatorConfig({ AGENT_TOKEN_SIGNING_KEY: key });
    expect(config).toMatchObject({
      WATCH_NAMESPACE: "default",
      LEADER_ELECTION: true,
      LEADER_ELECTION_LEASE_NAME: "browser-agents-operator",
      METRICS_PORT: 8081,
      AGENT_COMMAND: ["node", "agent-pod/dist/main.js"],
      AGENT_IMAGE_PULL_POLICY: "IfNotPresent",
      AGENT_TERMINATION_GRACE_PERIOD_SECONDS: 30,
    });
    expect(config.AGENT_RUNTIME_CLASS_NAME).toBeUndefined();
    expect(config.POD_NAME.length).toBeGreaterThan(0);
  });

  it("reads flags, numbers and the JSON command", () => {
    const config = parseOperatorConfig({
      AGENT_TOKEN_SIGNING_KEY: key,
      LEADER_ELECTION: "false",
      RECONCILE_CONCURRENCY: "8",
      AGENT_COMMAND: '["/usr/bin/env","node","main.js"]',
    });
    expect(config.LEADER_ELECTION).toBe(false);
    expect(config.RECONCILE_CONCURRENCY).toBe(8);
    expect(config.AGENT_COMMAND).toEqual(["/usr/bin/env", "node", "main.js"]);
  });

  it("names every bad variable and never echoes the signing key", () => {
    const attempt = () =>
      parseOperatorConfig({ AGENT_TOKEN_SIGNING_KEY: "too-short-secret", AGENT_COMMAND: "node main.js", AGENT_MEMORY_LIMIT: "lots" });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(/AGENT_TOKEN_SIGNING_KEY/);
    expect(attempt).toThrow(/AGENT_COMMAND/);
    expect(attempt).toThrow(/AGENT_MEMORY_LIMIT/);
    expect(attempt).not.toThrow(/too-short-secret/);
  });

  it("requires the signing key", () => {
    expect(() => parseOperatorConfig({})).toThrow(/AGENT_TOKEN_SIGNING_KEY/);
  });
});
