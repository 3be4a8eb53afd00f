import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hangingScript, invalidOutputScript, loginScript, neverDoneScript, sequenceScript } from "../fake-llm/index.js";
import { agentPids, waitFor } from "../support/agent-processes.js";
import { startLocalStack, type LocalStack } from "../support/local-stack.js";
import { sessionClient } from "../support/session-client.js";

let stack: LocalStack;

const accountSchema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  properties: { plan: { type: "string" }, credits: { type: "integer" } },
  required: ["plan", "credits"],
  additionalProperties: false,
};

beforeAll(async () => {
  stack = await startLocalStack({
    env: { MAX_STEPS: "8", MAX_CONCURRENT_SESSIONS: "2" },
    scripts: (site) => [
      loginScript({ siteUrl: site.url, match: /LOGIN-A/ }),
      invalidOutputScript({ match: /BAD-OUTPUT/ }),
      neverDoneScript({ match: /NEVER-DONE/ }),
      hangingScript({ match: /HANG/ }),
      sequenceScript({
        name: "account-check",
        match: /ACCOUNT-CHECK/,
        steps: [
          (ctx) => ctx.call("navigate", { url: `${site.url}/account` }),
          (ctx) => ctx.call("read_page"),
          (ctx) => {
            const plan = /Plan: *(\w+)/.exec(ctx.lastToolResultsText())?.[1];
            return plan ? ctx.done({ success: true, output: { plan, credits: 42 } }) : ctx.done({ success: false, output: null, text: "not logged in" });
          },
        ],
      }),
    ],
  });
}, 120_000);
afterAll(async () => stack?.close());

const client = () => sessionClient(stack.api, stack.key);
const call = (method: string, path: string, body?: unknown) => client().call(method, path, body);
const createSession = (body: Record<string, unknown>) => client().createSession(body);
const getSession = (id: string) => client().getSession(id);
const untilStatus = (id: string, accept: (status: string) => boolean) => client().untilStatus(id, accept);
const untilEnded = (id: string) => client().untilEnded(id);
/** Waits until the session's agent is inside a model call that never answers. */
const untilHanging = async (id: string, marker: string) => {
  await waitFor(() => agentPids(id).length, (count) => count > 0, 30_000, "the agent process");
  await waitFor(() => stack.llm.requests.some((r) => r.scriptName === "hang" && r.outcome === "pending" && JSON.stringify(r.body).includes(marker)), Boolean, 30_000, "the hanging model call");
};
const untilNoAgent = (id: string) => waitFor(() => agentPids(id), (pids) => pids.length === 0, 15_000, `agent of ${id} to exit`);
const messagesOf = (id: string) => client().messagesOf(id);

describe("sessions on the local runtime, end to end", () => {
  let profileId: string;

  it("runs a task that logs in and returns structured output, filling the profile", async () => {
    profileId = (await call("POST", "/v3/profiles", { name: "site login" })).body.id;
    const session = await createSession({ task: "LOGIN-A: log in to the site and report plan and credits", outputSchema: accountSchema, profileId });
    expect(session.status).toBe("running");
    const done = await untilEnded(session.id);
    expect(done).toMatchObject({ status: "stopped", isTaskSuccessful: true, failureKind: null, output: { plan: "Pro", credits: 42 } });
    expect(done.stepCount).toBeGreaterThanOrEqual(6);
    expect(done.totalInputTokens).toBeGreaterThan(0);
    expect(Number(done.llmCostUsd)).toBeGreaterThan(0);
    expect(done.lastStepSummary).toEqual(expect.any(String));
    const types = new Set((await messagesOf(session.id)).map((m) => m.type));
    for (const type of ["user_message", "browser_action", "browser_action_result", "completion"]) expect(types).toContain(type);
    const profile = (await call("GET", `/v3/profiles/${profileId}`)).body;
    expect(profile.cookieDomains).toEqual(["127.0.0.1"]);
    await untilNoAgent(session.id);
  });

  it("starts a second session with that profile already logged in", async () => {
    const session = await createSession({ task: "ACCOUNT-CHECK: what plan am I on?", profileId });
    expect(await untilEnded(session.id)).toMatchObject({ status: "stopped", isTaskSuccessful: true, output: { plan: "Pro" } });
    const withoutProfile = await createSession({ task: "ACCOUNT-CHECK: what plan am I on?" });
    expect(await untilEnded(withoutProfile.id)).toMatchObject({ isTaskSuccessful: false, failureKind: "agent_gave_up" });
  });

  it("ends with output_schema_mismatch when the output never matches the schema", async () => {
    const session = await createSession({ task: "BAD-OUTPUT: report", outputSchema: accountSchema });
    expect(await untilEnded(session.id)).toMatchObject({ status: "stopped", isTaskSuccessful: false, failureKind: "output_schema_mismatch", output: null });
  });

  it("ends with max_steps_reached at the step limit", async () => {
    const session = await createSession({ task: "NEVER-DONE: scroll forever" });
    const done = await untilEnded(session.id);
    expect(done).toMatchObject({ status: "stopped", isTaskSuccessful: false, failureKind: "max_steps_reached", stepCount: 8 });
  });

  it("stops before a model call that would cross maxCostUsd", async () => {
    const session = await createSession({ task: "NEVER-DONE: scroll on a budget", maxCostUsd: "0.003" });
    const done = await untilEnded(session.id);
    expect(done).toMatchObject({ status: "stopped", isTaskSuccessful: false, failureKind: "max_cost_exceeded" });
    expect(Number(done.totalCostUsd)).toBeGreaterThan(0);
    expect(Number(done.totalCostUsd)).toBeLessThanOrEqual(0.003);
    expect(done.stepCount).toBeLessThan(8);
  });

  it("stop with strategy session cancels a running task and ends the agent process", async () => {
    const marker = randomUUID();
    const session = await createSession({ task: `HANG: until stopped ${marker}` });
    await untilHanging(session.id, marker);
    const stopped = await call("POST", `/v3/sessions/${session.id}/stop`);
    expect(stopped.body).toMatchObject({ status: "stopped", isTaskSuccessful: false, failureKind: "cancelled" });
    await untilNoAgent(session.id);
  });

  it("stop with strategy task leaves the session idle, and new work runs in it", async () => {
    const marker = randomUUID();
    const session = await createSession({ task: `HANG: wait for the model ${marker}`, profileId });
    await untilHanging(session.id, marker);
    const idle = await call("POST", `/v3/sessions/${session.id}/stop`, { strategy: "task" });
    expect(idle.body).toMatchObject({ status: "idle", failureKind: "cancelled" });
    await untilNoAgent(session.id);
    const more = await call("POST", "/v3/sessions", { sessionId: session.id, task: "ACCOUNT-CHECK: plan please" });
    expect(more.body).toMatchObject({ id: session.id, status: "running", failureKind: null });
    expect(await untilEnded(session.id)).toMatchObject({ status: "stopped", isTaskSuccessful: true, output: { plan: "Pro" } });
  });

  it("delete while running cancels the run, ends the process and removes the session", async () => {
    const marker = randomUUID();
    const session = await createSession({ task: `HANG: until deleted ${marker}` });
    await untilHanging(session.id, marker);
    expect((await call("DELETE", `/v3/sessions/${session.id}`)).status).toBe(204);
    expect(agentPids(session.id)).toEqual([]);
    expect((await call("GET", `/v3/sessions/${session.id}`)).status).toBe(404);
  });

  it("keepAlive leaves the browser open: new work continues in the same browser", async () => {
    const session = await createSession({ task: "LOGIN-A: log in", keepAlive: true });
    expect(await untilStatus(session.id, (status) => status !== "running")).toMatchObject({ status: "idle", isTaskSuccessful: true });
    const pids = agentPids(session.id);
    expect(pids.length).toBeGreaterThan(0);
    const next = await call("POST", "/v3/sessions", { sessionId: session.id, task: "ACCOUNT-CHECK: still logged in?", keepAlive: false });
    expect(next.status).toBe(200);
    expect(await untilEnded(session.id)).toMatchObject({ status: "stopped", isTaskSuccessful: true, output: { plan: "Pro" } });
    await untilNoAgent(session.id);
  });

  it("ends the session in error when its agent process is killed mid-run", async () => {
    const marker = randomUUID();
    const session = await createSession({ task: `HANG: until killed ${marker}` });
    await untilHanging(session.id, marker);
    for (const pid of agentPids(session.id)) process.kill(pid, "SIGKILL");
    const ended = await untilEnded(session.id);
    expect(ended).toMatchObject({ status: "error", failureKind: "internal_error", isTaskSuccessful: false });
    const last = (await messagesOf(session.id)).at(-1);
    expect(last).toMatchObject({ type: "error", summary: expect.stringContaining("killed") });
    await untilNoAgent(session.id);
  });

  it("runs at most MAX_CONCURRENT_SESSIONS agents; the rest wait in order", async () => {
    const first = await createSession({ task: "HANG: queued 0" });
    const second = await createSession({ task: "HANG: queued 1" });
    const third = await createSession({ task: "HANG: queued 2" });
    const sessions = [first, second, third];
    await waitFor(() => agentPids(first.id).length > 0 && agentPids(second.id).length > 0, Boolean, 30_000, "two agents");
    expect(agentPids(third.id)).toEqual([]);
    expect((await getSession(third.id)).status).toBe("running");
    await call("POST", `/v3/sessions/${first.id}/stop`);
    await waitFor(() => agentPids(third.id).length > 0, Boolean, 30_000, "the third agent");
    await call("POST", `/v3/sessions/${second.id}/stop`);
    await call("POST", `/v3/sessions/${third.id}/stop`);
    for (const session of sessions) await untilNoAgent(session.id);
  });
});
