import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { agentPids } from "../../../../test/support/agent-processes.js";
import { createLogger } from "../../logger.js";
import type { SessionRef } from "../session-runtime.js";
import { LocalRuntime } from "./local-runtime.js";

/** Agents here are plain `node` processes that run until signalled: the runtime's own behaviour is under test. */
function runtimeWith(maxConcurrent: number) {
  const exits: { sessionId: string; message: string }[] = [];
  const started: string[] = [];
  const runtime = new LocalRuntime({
    maxConcurrent,
    command: [process.execPath, "-e", "process.on('SIGTERM', () => process.exit(0)); setInterval(() => {}, 1000)"],
    agentEnvironment: (sessionId) => {
      started.push(sessionId);
      return { PATH: process.env.PATH ?? "", AGENT_SESSION_ID: sessionId };
    },
    events: { agentExited: async (sessionId, detail) => void exits.push({ sessionId, message: detail.message }) },
    logger: createLogger("silent"),
  });
  return { runtime, exits, started };
}

const ref = (): SessionRef => ({ id: randomUUID(), tenantId: randomUUID(), tenantName: "t" });
const until = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i += 1) await new Promise((resolve) => setTimeout(resolve, 25));
  expect(check()).toBe(true);
};

describe("LocalRuntime", () => {
  it("queues beyond its limit and starts waiting sessions in order as agents end", async () => {
    const { runtime, started, exits } = runtimeWith(1);
    const [a, b, c] = [ref(), ref(), ref()];
    for (const session of [a, b, c]) await runtime.start(session);
    expect(runtime.counts()).toEqual({ running: 1, waiting: 2 });
    await runtime.stop(a, "session");
    await until(() => started.length === 2);
    expect(started).toEqual([a.id, b.id]);
    await runtime.delete(c);
    await runtime.stop(b, "session");
    expect(runtime.counts()).toEqual({ running: 0, waiting: 0 });
    expect(exits).toEqual([]);
    await runtime.close();
  });

  it("starts a new agent when new work arrives while the previous one is still exiting", async () => {
    const { runtime, started } = runtimeWith(2);
    const session = ref();
    await runtime.start(session);
    const stopping = runtime.stop(session, "task");
    await runtime.start(session);
    await stopping;
    await until(() => started.length === 2 && runtime.counts().running === 1);
    await runtime.close();
  });

  it("reports an agent that dies on its own, and every live agent when it closes", async () => {
    const { runtime, exits } = runtimeWith(2);
    const [crashing, live] = [ref(), ref()];
    await runtime.start(crashing);
    await runtime.start(live);
    await until(() => agentPids(crashing.id).length === 1);
    for (const pid of agentPids(crashing.id)) process.kill(pid, "SIGKILL");
    await until(() => exits.length === 1);
    expect(exits[0]).toEqual({ sessionId: crashing.id, message: "The agent process was killed by SIGKILL." });
    await runtime.close();
    expect(exits.map((e) => e.sessionId)).toEqual([crashing.id, live.id]);
    expect(agentPids(live.id)).toEqual([]);
  });
});
