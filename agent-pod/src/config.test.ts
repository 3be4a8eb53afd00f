import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "./config.js";

const valid = {
  AGENT_API_URL: "http://127.0.0.1:8080",
  AGENT_SESSION_ID: "5b8f6a0e-1c1f-4c55-9a55-0d5e9f0e0c11",
  AGENT_TOKEN: "tok-secret-value",
};

describe("parseConfig", () => {
  it("applies the contract's defaults", () => {
    const config = parseConfig(valid);
    expect(config.CHROMIUM_PATH).toBe("/usr/bin/chromium");
    expect(config.DEVTOOLS_PORT).toBe(0);
    expect(config.AGENT_EXIT_WITH_STDIN).toBe(false);
  });

  it("names every missing or bad variable without echoing the token", () => {
    const attempt = () => parseConfig({ AGENT_API_URL: "not a url", AGENT_TOKEN: "tok-secret-value", DEVTOOLS_PORT: "99999" });
    expect(attempt).toThrow(ConfigError);
    const message = (() => {
      try {
        attempt();
        return "";
      } catch (error) {
        return (error as Error).message;
      }
    })();
    expect(message).toContain("AGENT_API_URL");
    expect(message).toContain("AGENT_SESSION_ID");
    expect(message).toContain("DEVTOOLS_PORT");
    expect(message).not.toContain("tok-secret-value");
  });
});
