import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { echoSecretScript, secretLoginScript } from "../fake-llm/index.js";
import { SITE_PASSWORD } from "../site/index.js";
import { startLocalStack, type LocalStack } from "../support/local-stack.js";
import { TEST_LLM_KEY } from "../support/scripted-model.js";
import { sessionClient } from "../support/session-client.js";

// Its own stack: no other task here types the password in plain text, so "never seen" is strict.
let stack: LocalStack;

beforeAll(async () => {
  stack = await startLocalStack({
    scripts: (site) => [
      secretLoginScript({ siteUrl: site.url, match: /SECRET-LOGIN/ }),
      echoSecretScript({ siteUrl: site.url, match: /ECHO-SECRET/ }),
    ],
  });
}, 120_000);
afterAll(async () => stack?.close());

const call = (method: string, path: string, body?: unknown) => stack.api.call(stack.key, method, path, body);
const runToEnd = async (body: Record<string, unknown>) => {
  const client = sessionClient(stack.api, stack.key);
  return client.untilEnded((await client.createSession(body)).id);
};

describe("sensitive data", () => {
  it("is typed for real but never reaches the model, the messages, the session or the logs", async () => {
    const login = await runToEnd({ task: "SECRET-LOGIN: log in with the stored password", sensitiveData: { password: SITE_PASSWORD } });
    expect(login).toMatchObject({ isTaskSuccessful: true, output: { plan: "Pro" } });
    const echo = await runToEnd({ task: "ECHO-SECRET: type the secret and read it back", sensitiveData: { password: SITE_PASSWORD } });
    expect(echo.isTaskSuccessful).toBe(true);
    // The page echoed the real password; the agent reported it masked.
    expect(JSON.stringify(echo.output)).toContain("<secret>password</secret>");

    expect(stack.llm.chatRequests().length).toBeGreaterThan(0);
    expect(stack.llm.sawText(SITE_PASSWORD)).toBe(false);
    expect(stack.llm.sawText("<secret>password</secret>")).toBe(true);
    for (const session of [login, echo]) {
      const messages = await call("GET", `/v3/sessions/${session.id}/messages?limit=1000`);
      expect(messages.body.messages.length).toBeGreaterThan(2);
      expect(messages.text).not.toContain(SITE_PASSWORD);
      expect(JSON.stringify(session)).not.toContain(SITE_PASSWORD);
    }
    const logs = stack.logLines.join("\n");
    expect(logs).toContain(login.id);
    expect(logs).not.toContain(SITE_PASSWORD);
    expect(logs).not.toContain(TEST_LLM_KEY);
    expect(logs).not.toContain(stack.key);
  });
});
