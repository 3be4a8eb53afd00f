import { randomUUID } from "node:crypto";
import { AGENT_SESSION_API_VERSION, AGENT_SESSION_KIND, agentSessionName, type AgentSession } from "@browser-agents/protocol";
import { CustomObjectsApi } from "@kubernetes/client-node";
import type { BenchApiServer } from "./operator-fake-server.js";

export const BENCH_NAMESPACE = "agents";
const TENANTS = 10;

/** Counts, from the server's own store, how far the operator has got. */
export interface Progress {
  /** Distinct agent pods created so far. */
  pods(): number;
  /** AgentSessions whose status says Running. */
  running(): number;
  /** Resolves when probe() reaches target; rejects after timeoutMs. */
  until(probe: () => number, target: number, timeoutMs: number, what: string): Promise<number>;
  close(): void;
}

export function trackProgress(kube: BenchApiServer): Progress {
  const pods = new Set<string>();
  const running = new Set<string>();
  const waiters = new Set<() => void>();
  const unsubscribe = kube.store.subscribe((event) => {
    const name = event.object.metadata.name ?? "";
    if (event.storageKey === "pods" && event.type === "ADDED") pods.add(name);
    if (event.storageKey === "agentsessions.browser-agents.dev") {
      const phase = (event.object.status as { phase?: string } | undefined)?.phase;
      if (event.type !== "DELETED" && phase === "Running") running.add(name);
      else running.delete(name);
    }
    for (const waiter of waiters) waiter();
  });
  return {
    pods: () => pods.size,
    running: () => running.size,
    until(probe, target, timeoutMs, what) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (probe() < target) return;
          done();
          resolve(performance.now());
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`${what}: ${probe()} of ${target} after ${timeoutMs / 1000} s`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    close() {
      unsubscribe();
      waiters.clear();
    },
  };
}

function agentSession(index: number): AgentSession {
  const sessionId = randomUUID();
  return {
    apiVersion: AGENT_SESSION_API_VERSION,
    kind: AGENT_SESSION_KIND,
    metadata: { name: agentSessionName(sessionId) },
    spec: {
      sessionId,
      tenant: `tenant-${index % TENANTS}`,
      desiredState: "run",
      apiUrl: "http://browser-agents-api.agents:8080",
      image: "browser-agents/agent-pod:bench",
      resources: { requests: { cpu: "100m", memory: "256Mi" } },
    },
  };
}

/** Creates `count` AgentSessions through the HTTP API as the API service would, `concurrency` at a time. */
export async function createAgentSessions(kube: BenchApiServer, count: number, concurrency: number, firstIndex = 0): Promise<void> {
  const api = kube.kubeConfig.makeApiClient(CustomObjectsApi);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const index = firstIndex + next;
      next += 1;
      await api.createNamespacedCustomObject({
        group: "browser-agents.dev",
        version: "v1alpha1",
        namespace: BENCH_NAMESPACE,
        plural: "agentsessions",
        body: agentSession(index),
      });
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}
