import { V1MicroTime, type CoordinationV1Api, type V1Lease } from "@kubernetes/client-node";
import type { Logger } from "pino";
import { isConflict, isNotFound } from "../kube/api-errors.js";
import { InterruptibleSleep } from "../timing/interruptible-sleep.js";

export interface LeaseElectorOptions {
  api: CoordinationV1Api;
  namespace: string;
  leaseName: string;
  identity: string;
  leaseDurationMs: number;
  /** A leader that cannot renew for this long stops acting (before others may take over). */
  renewDeadlineMs: number;
  retryPeriodMs: number;
  logger: Logger;
  onStartedLeading: () => Promise<void> | void;
  onStoppedLeading: () => Promise<void> | void;
}

type Attempt = "held" | "held-by-other" | "failed";

/**
 * Leader election on a coordination.k8s.io/v1 Lease, in the manner of client-go: acquire a free
 * or expired lease, renew it every retry period, stop acting when renewal fails for the renew
 * deadline, release it on shutdown. Expiry is judged by when this replica last saw the lease
 * change, on its own clock, so clock skew between nodes does not matter.
 */
export class LeaseElector {
  private leading = false;
  private stopped = false;
  private loop: Promise<void> | undefined;
  private readonly pause = new InterruptibleSleep();
  private lastRenewedAt = 0;
  private observed: { record: string; at: number } | undefined;

  constructor(private readonly options: LeaseElectorOptions) {}

  get isLeader(): boolean {
    return this.leading;
  }

  start(): void {
    this.loop ??= this.run();
  }

  /** Stops acting, then hands the lease back so a standby takes over at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.pause.interrupt();
    await this.loop;
    if (this.leading) {
      await this.loseLeadership("shutting down");
      await this.release();
    }
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      const attempt = await this.withinDeadline(this.tryAcquireOrRenew());
      if (this.stopped) break;
      if (attempt === "held") {
        this.lastRenewedAt = Date.now();
        if (!this.leading) {
          this.leading = true;
          this.options.logger.info({ identity: this.options.identity }, "became leader");
          await this.guard(this.options.onStartedLeading, "onStartedLeading");
        }
      } else if (this.leading) {
        if (attempt === "held-by-other") await this.loseLeadership("another replica holds the lease");
        else if (Date.now() - this.lastRenewedAt > this.options.renewDeadlineMs) await this.loseLeadership("could not renew the lease in time");
      }
      await this.pause.sleep(this.leading ? this.options.retryPeriodMs : jittered(this.options.retryPeriodMs));
    }
  }

  /** A request that hangs must not keep a leader acting past its renew deadline. */
  private withinDeadline(attempt: Promise<Attempt>): Promise<Attempt> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<Attempt>((resolve) => {
      timer = setTimeout(() => resolve("failed"), this.options.renewDeadlineMs / 2);
    });
    return Promise.race([attempt, timeout]).finally(() => clearTimeout(timer));
  }

  private async loseLeadership(why: string): Promise<void> {
    this.leading = false;
    this.options.logger.warn({ identity: this.options.identity, why }, "stopped leading");
    await this.guard(this.options.onStoppedLeading, "onStoppedLeading");
  }

  private async tryAcquireOrRenew(): Promise<Attempt> {
    const { api, namespace, leaseName: name, identity } = this.options;
    const now = new Date();
    try {
      let lease: V1Lease;
      try {
        lease = await api.readNamespacedLease({ name, namespace });
      } catch (error) {
        if (!isNotFound(error)) throw error;
        await api.createNamespacedLease({
          namespace,
          body: {
            apiVersion: "coordination.k8s.io/v1",
            kind: "Lease",
            metadata: { name, namespace },
            spec: this.leaseSpec(now, now, 0),
          },
        });
        return "held";
      }
      const spec = lease.spec ?? {};
      const holder = spec.holderIdentity ?? "";
      this.noteObservation(lease);
      const expired = this.observed ? Date.now() - this.observed.at > (spec.leaseDurationSeconds ?? 0) * 1000 : true;
      if (holder !== "" && holder !== identity && !expired) return "held-by-other";
      const takingOver = holder !== identity;
      const acquiredAt = takingOver ? now : asDate(spec.acquireTime) ?? now;
      const transitions = (spec.leaseTransitions ?? 0) + (takingOver ? 1 : 0);
      const updated = await api.replaceNamespacedLease({
        name,
        namespace,
        body: { ...lease, spec: this.leaseSpec(acquiredAt, now, transitions) },
      });
      this.noteObservation(updated);
      return "held";
    } catch (error) {
      if (isConflict(error)) return "held-by-other";
      this.options.logger.warn({ err: error }, "lease request failed");
      return "failed";
    }
  }

  private leaseSpec(acquiredAt: Date, renewedAt: Date, transitions: number): NonNullable<V1Lease["spec"]> {
    return {
      holderIdentity: this.options.identity,
      leaseDurationSeconds: Math.ceil(this.options.leaseDurationMs / 1000),
      // MicroTime must be sent with six fractional digits; a plain Date has three.
      acquireTime: new V1MicroTime(acquiredAt.getTime()),
      renewTime: new V1MicroTime(renewedAt.getTime()),
      leaseTransitions: transitions,
    };
  }

  private noteObservation(lease: V1Lease): void {
    const spec = lease.spec ?? {};
    const record = JSON.stringify([spec.holderIdentity, String(spec.renewTime ?? ""), spec.leaseTransitions]);
    if (this.observed?.record !== record) this.observed = { record, at: Date.now() };
  }

  private async release(): Promise<void> {
    const { api, namespace, leaseName: name, identity } = this.options;
    try {
      const lease = await api.readNamespacedLease({ name, namespace });
      if (lease.spec?.holderIdentity !== identity) return;
      const now = new V1MicroTime(Date.now());
      await api.replaceNamespacedLease({
        name,
        namespace,
        body: { ...lease, spec: { ...lease.spec, holderIdentity: "", leaseDurationSeconds: 1, renewTime: now, acquireTime: now } },
      });
      this.options.logger.info({ identity }, "released the lease");
    } catch (error) {
      this.options.logger.warn({ err: error }, "could not release the lease; it expires by itself");
    }
  }

  private async guard(callback: () => Promise<void> | void, name: string): Promise<void> {
    try {
      await callback();
    } catch (error) {
      this.options.logger.error({ err: error }, `${name} failed`);
    }
  }

}

function jittered(ms: number): number {
  return ms * (1 + Math.random() * 0.2);
}

/** The client leaves MicroTime fields as the server's strings; accept either. */
function asDate(value: Date | string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}
