import { AgentSessionSchema } from "@browser-agents/protocol";
import type { CoreV1Api } from "@kubernetes/client-node";
import type { Logger } from "pino";
import { deleteIgnoringNotFound } from "../kube/api-errors.js";
import type { AgentSessionClient } from "../kube/agent-session-client.js";
import { decodeOwnedObject, owningAgentSession, type OwnedObjectSummary } from "../kube/owned-object-summary.js";
import { controllerOf, MANAGED_SELECTOR } from "../reconcile/owned-objects.js";

export interface OrphanSweeperDeps {
  core: CoreV1Api;
  sessions: AgentSessionClient;
  intervalMs: number;
  logger: Logger;
}

export interface SweepResult {
  deletedPods: string[];
  deletedSecrets: string[];
}

/**
 * Deletes pods and secrets labelled as ours whose AgentSession is gone. The garbage collector
 * does the same through ownerReferences; this covers objects that lost theirs, or clusters
 * where the collector lags.
 */
export class OrphanSweeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;

  constructor(private readonly deps: OrphanSweeperDeps) {}

  start(): void {
    const tick = () => {
      this.running ??= this.sweepOnce()
        .catch((error: unknown) => this.deps.logger.warn({ err: error }, "orphan sweep failed"))
        .finally(() => (this.running = undefined));
    };
    tick();
    this.timer = setInterval(tick, this.deps.intervalMs);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  async sweepOnce(): Promise<SweepResult> {
    const namespace = this.deps.sessions.namespace;
    // Children first, owners second: an owner made before a listed child is then always seen.
    const pods = (await this.deps.core.listNamespacedPod({ namespace, labelSelector: MANAGED_SELECTOR })).items;
    const secrets = (await this.deps.core.listNamespacedSecret({ namespace, labelSelector: MANAGED_SELECTOR })).items;
    const owners = (await this.deps.sessions.list()).items.flatMap((raw) => {
      const parsed = AgentSessionSchema.safeParse(raw);
      return parsed.success ? [parsed.data] : [];
    });
    const ownerUids = new Set(owners.map((session) => session.metadata.uid));
    const ownerNames = new Set(owners.map((session) => session.metadata.name));
    const isOrphan = (object: OwnedObjectSummary): boolean => {
      const controller = controllerOf(object.metadata.ownerReferences);
      if (controller) return !ownerUids.has(controller.uid);
      const name = owningAgentSession(object);
      return name === undefined || !ownerNames.has(name);
    };

    const result: SweepResult = { deletedPods: [], deletedSecrets: [] };
    for (const pod of pods.map(decodeOwnedObject)) {
      if (!pod || !isOrphan(pod)) continue;
      await deleteIgnoringNotFound(() => this.deps.core.deleteNamespacedPod({ name: pod.metadata.name, namespace }));
      result.deletedPods.push(pod.metadata.name);
    }
    for (const secret of secrets.map(decodeOwnedObject)) {
      if (!secret || !isOrphan(secret)) continue;
      await deleteIgnoringNotFound(() => this.deps.core.deleteNamespacedSecret({ name: secret.metadata.name, namespace }));
      result.deletedSecrets.push(secret.metadata.name);
    }
    if (result.deletedPods.length + result.deletedSecrets.length > 0) {
      this.deps.logger.info(result, "deleted orphaned agent pods and secrets");
    }
    return result;
  }
}
