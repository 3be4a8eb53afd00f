import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { FailureKind } from "./queue/work-queue.js";

const POD_PHASES = ["Pending", "Running", "Succeeded", "Failed", "Unknown"] as const;
const FAILURE_KINDS: FailureKind[] = ["temporary", "permanent", "unexpected"];
const RECONCILE_RESULTS = ["success", "error"] as const;

export type OperatorMetrics = ReturnType<typeof createOperatorMetrics>;

/**
 * The operator's metrics, in a registry of their own (one per operator instance). Label sets
 * that are known in advance are created at zero, so dashboards show zeros instead of gaps.
 */
export function createOperatorMetrics(registry: Registry = new Registry()) {
  const reconcileDuration = new Histogram({
    name: "browser_agents_operator_reconcile_duration_seconds",
    help: "Time spent in one reconcile of an AgentSession.",
    labelNames: ["result"] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const reconcileErrors = new Counter({
    name: "browser_agents_operator_reconcile_errors_total",
    help: "Reconciles that failed, by kind: temporary (retry after a delay), permanent (no retry), unexpected (backoff).",
    labelNames: ["kind"] as const,
    registers: [registry],
  });
  const podsByPhase = new Gauge({
    name: "browser_agents_operator_pods",
    help: "Agent pods managed by the operator, by pod phase.",
    labelNames: ["phase"] as const,
    registers: [registry],
  });
  const podStartDuration = new Histogram({
    name: "browser_agents_operator_pod_start_duration_seconds",
    help: "Time from creating an agent pod to its agent container running.",
    buckets: [0.5, 1, 2.5, 5, 10, 15, 30, 60, 120, 300, 600],
    registers: [registry],
  });
  const sessionsRunning = new Gauge({
    name: "browser_agents_operator_sessions_running",
    help: "AgentSessions in phase Running, by tenant.",
    labelNames: ["tenant"] as const,
    registers: [registry],
  });
  const leader = new Gauge({
    name: "browser_agents_operator_leader",
    help: "1 while this replica holds the leader lease and acts, else 0.",
    registers: [registry],
  });

  for (const result of RECONCILE_RESULTS) reconcileDuration.zero({ result });
  for (const kind of FAILURE_KINDS) reconcileErrors.labels({ kind }).inc(0);
  for (const phase of POD_PHASES) podsByPhase.labels({ phase }).set(0);
  leader.set(0);
  const tenantsSeen = new Set<string>();

  return {
    registry,
    reconcileDuration,
    reconcileErrors,
    podStartDuration,
    leader,
    /** Replaces the pod counts with a fresh count of the current pods' phases. */
    setPodPhases(phases: Iterable<string | undefined>): void {
      const counts = new Map<string, number>(POD_PHASES.map((phase) => [phase, 0]));
      for (const phase of phases) {
        const known = phase && counts.has(phase) ? phase : "Unknown";
        counts.set(known, (counts.get(known) ?? 0) + 1);
      }
      for (const [phase, count] of counts) podsByPhase.labels({ phase }).set(count);
    },
    /** Replaces the running-session counts; tenants that no longer run anything drop to zero. */
    setRunningSessions(tenants: Iterable<string>): void {
      const counts = new Map<string, number>([...tenantsSeen].map((tenant) => [tenant, 0]));
      for (const tenant of tenants) counts.set(tenant, (counts.get(tenant) ?? 0) + 1);
      for (const [tenant, count] of counts) {
        tenantsSeen.add(tenant);
        sessionsRunning.labels({ tenant }).set(count);
      }
    },
  };
}
