import {
  FINALIZER,
  agentTokenSecretName,
  deriveAgentToken,
  type AgentSession,
  type AgentSessionPhase,
} from "@browser-agents/protocol";
import { PatchStrategy, setHeaderOptions, type CoreV1Api, type V1Pod } from "@kubernetes/client-node";
import type { Logger } from "pino";
import { deleteIgnoringNotFound, isConflict, isNotFound, readOrNull } from "../kube/api-errors.js";
import type { AgentSessionClient } from "../kube/agent-session-client.js";
import type { OperatorMetrics } from "../metrics.js";
import { TemporaryError } from "../queue/reconcile-errors.js";
import type { HandlerResult } from "../queue/work-queue.js";
import type { AgentPodSettings } from "./agent-pod-settings.js";
import { controllerOf } from "./owned-objects.js";
import { observePod, type PodObservation } from "./pod-observation.js";
import { agentPodName, buildAgentPod } from "./pod-spec.js";
import { buildAgentTokenSecret, secretHoldsToken } from "./secret-spec.js";
import { computeStatus, sameStatus, statusMergePatch } from "./session-status.js";

export interface ReconcilerDeps {
  sessions: AgentSessionClient;
  core: CoreV1Api;
  signingKey: string;
  podSettings: AgentPodSettings;
  resyncMs: number;
  metrics: OperatorMetrics;
  logger: Logger;
}

/** Phases that wait for something to happen soon; the pod watch usually wakes us first. */
const TRANSITION_RECHECK_MS = 10_000;
const DELETION_RECHECK_MS = 2_000;
const mergePatch = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);

/**
 * Converges one AgentSession: reads the world, makes it match the spec, records what it saw.
 * Level-triggered and idempotent: it is handed a name, never an event, and a second run with
 * nothing changed makes no write.
 */
export class AgentSessionReconciler {
  constructor(private readonly deps: ReconcilerDeps) {}

  private get namespace(): string {
    return this.deps.sessions.namespace;
  }

  async reconcile(name: string): Promise<HandlerResult> {
    const session = await this.deps.sessions.get(name);
    if (!session) return {};
    if (session.metadata.deletionTimestamp) return this.finalize(session);
    return this.converge(await this.ensureFinalizer(session));
  }

  private async ensureFinalizer(session: AgentSession): Promise<AgentSession> {
    const finalizers = session.metadata.finalizers ?? [];
    if (finalizers.includes(FINALIZER)) return session;
    return this.writeMetadata(session, { finalizers: [...finalizers, FINALIZER] });
  }

  private async converge(session: AgentSession): Promise<HandlerResult> {
    const podName = agentPodName(session);
    let pod = await readOrNull(() => this.deps.core.readNamespacedPod({ name: podName, namespace: this.namespace }));
    if (pod && controllerOf(pod.metadata?.ownerReferences)?.uid !== session.metadata.uid) {
      // Left by an earlier AgentSession of the same name; the new one gets its own pod.
      await this.deletePod(podName);
      return { requeueAfterMs: DELETION_RECHECK_MS };
    }
    let observation = pod ? observePod(pod) : null;
    let launched = latest(session.status?.launchedGeneration, observation?.launchedGeneration);
    const generation = session.metadata.generation ?? 0;

    if (session.spec.desiredState === "run") {
      await this.ensureTokenSecret(session);
      if (!pod && (launched ?? 0) < generation) {
        pod = await this.createPod(session);
        observation = observePod(pod);
        launched = observation.launchedGeneration ?? generation;
      } else if (observation?.failure && observation.phase === "Pending" && !observation.terminating) {
        // Stuck before running (bad image...): free the node's resources; the status keeps the reason.
        await this.deletePod(podName);
      }
    } else if (observation && !observation.terminating) {
      await this.deletePod(podName);
      observation = { ...observation, terminating: true };
    }

    const next = computeStatus({
      generation,
      desiredState: session.spec.desiredState,
      launchedGeneration: launched,
      pod: observation,
      previous: session.status,
      now: new Date(),
    });
    if (!sameStatus(session.status, next)) {
      try {
        await this.deps.sessions.patchStatus(session.metadata.name, statusMergePatch(session.status, next));
      } catch (error) {
        // Deleted meanwhile: its deletion event brings us back.
        if (isNotFound(error)) return {};
        throw error;
      }
      this.recordTransition(session, next.phase, observation, launched);
      this.deps.logger.info(
        { agentSession: session.metadata.name, phase: next.phase, message: next.message },
        "AgentSession status changed",
      );
    }
    return { requeueAfterMs: isSettled(next.phase) ? this.deps.resyncMs : Math.min(TRANSITION_RECHECK_MS, this.deps.resyncMs) };
  }

  /** The AgentSession is being deleted: remove its pod and secret, then let it go. */
  private async finalize(session: AgentSession): Promise<HandlerResult> {
    const finalizers = session.metadata.finalizers ?? [];
    if (!finalizers.includes(FINALIZER)) return {};
    const podName = agentPodName(session);
    const secretName = agentTokenSecretName(session.metadata.name);
    await this.deletePod(podName);
    await deleteIgnoringNotFound(() => this.deps.core.deleteNamespacedSecret({ name: secretName, namespace: this.namespace }));
    // The pod ends gracefully (the agent saves the profile); the finalizer stays until it is gone.
    const podLeft = await readOrNull(() => this.deps.core.readNamespacedPod({ name: podName, namespace: this.namespace }));
    const secretLeft = await readOrNull(() => this.deps.core.readNamespacedSecret({ name: secretName, namespace: this.namespace }));
    if (podLeft || secretLeft) return { requeueAfterMs: DELETION_RECHECK_MS };
    try {
      await this.writeMetadata(session, { finalizers: finalizers.filter((finalizer) => finalizer !== FINALIZER) });
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
    this.deps.logger.info({ agentSession: session.metadata.name }, "AgentSession cleaned up");
    return {};
  }

  private async ensureTokenSecret(session: AgentSession): Promise<void> {
    const token = deriveAgentToken(this.deps.signingKey, session.spec.sessionId);
    const wanted = buildAgentTokenSecret(session, token);
    const name = agentTokenSecretName(session.metadata.name);
    const existing = await readOrNull(() => this.deps.core.readNamespacedSecret({ name, namespace: this.namespace }));
    if (existing && controllerOf(existing.metadata?.ownerReferences)?.uid !== session.metadata.uid) {
      await deleteIgnoringNotFound(() => this.deps.core.deleteNamespacedSecret({ name, namespace: this.namespace }));
      throw new TemporaryError(`replaced a stale secret ${name}`, 500);
    }
    if (!existing) {
      try {
        await this.deps.core.createNamespacedSecret({ namespace: this.namespace, body: wanted });
      } catch (error) {
        if (!isConflict(error)) throw error;
      }
      return;
    }
    if (!secretHoldsToken(existing, token)) {
      // The signing key changed: the agent must present what the API now expects.
      await this.deps.core.patchNamespacedSecret({ name, namespace: this.namespace, body: { data: wanted.data } }, mergePatch);
    }
  }

  /** Creates the pod; a 409 means it is already there, and that one is used. */
  private async createPod(session: AgentSession): Promise<V1Pod> {
    const body = buildAgentPod(session, this.deps.podSettings);
    const name = agentPodName(session);
    try {
      const created = await this.deps.core.createNamespacedPod({ namespace: this.namespace, body });
      this.deps.logger.info({ agentSession: session.metadata.name, pod: name }, "agent pod created");
      return created;
    } catch (error) {
      if (!isConflict(error)) throw error;
    }
    const existing = await readOrNull(() => this.deps.core.readNamespacedPod({ name, namespace: this.namespace }));
    if (!existing) throw new TemporaryError(`pod ${name} existed a moment ago and is gone now`, 200);
    return existing;
  }

  private async deletePod(name: string): Promise<void> {
    await deleteIgnoringNotFound(() => this.deps.core.deleteNamespacedPod({ name, namespace: this.namespace }));
  }

  /** A metadata write that fails with 409 if the object changed since it was read. */
  private async writeMetadata(session: AgentSession, metadata: { finalizers: string[] }): Promise<AgentSession> {
    try {
      return await this.deps.sessions.patch(session.metadata.name, {
        metadata: { ...metadata, resourceVersion: session.metadata.resourceVersion },
      });
    } catch (error) {
      if (isConflict(error)) throw new TemporaryError("AgentSession changed while being reconciled", 100);
      throw error;
    }
  }

  private recordTransition(
    session: AgentSession,
    phase: AgentSessionPhase,
    pod: PodObservation | null,
    launched: number | undefined,
  ): void {
    const previous = session.status;
    const wasRunning = previous?.phase === "Running" && previous.launchedGeneration === launched;
    if (phase !== "Running" || wasRunning || !pod?.createdAt) return;
    const startedAt = pod.startedAt ?? new Date();
    this.deps.metrics.podStartDuration.observe(Math.max(0, (startedAt.getTime() - pod.createdAt.getTime()) / 1000));
  }
}

function isSettled(phase: AgentSessionPhase): boolean {
  return phase === "Running" || phase === "Stopped" || phase === "Failed";
}

function latest(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.max(a, b);
}
