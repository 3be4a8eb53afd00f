import type { FakeKube } from "../fake-kube.js";
import { ApiError } from "../store/api-error.js";
import { isPlainObject, kubeTimestamp, type KubeObject } from "../store/kube-object.js";
import type { ResourceType } from "../store/resource-type.js";
import { startContainerProcess, type ContainerProcess, type ProcessExit } from "./container-process.js";
import { ContainerConfigError, containerEnvironment, expandReferences } from "./container-env.js";
import { podSchema, type Container, type Pod } from "./pod-spec.js";
import { podStatus, type ContainerState, type PodStatusInput } from "./pod-status.js";

/** What an image would contribute: Docker's ENTRYPOINT (command), CMD (args) and WORKDIR. */
export interface ImageConfig {
  command?: string[];
  args?: string[];
  workingDir?: string;
}

export interface FakeKubeletOptions {
  kube: FakeKube;
  /** The node this kubelet binds unscheduled pods to; default "fake-node". */
  nodeName?: string;
  /** Environment every container starts from (PATH and HOME are taken from this process); container env wins. */
  env?: Record<string, string>;
  /** Environment that wins over the container's own (e.g. to point an in-cluster URL at 127.0.0.1). */
  envOverrides?: Record<string, string>;
  /** Per-image entrypoint, used when a container has no `command` of its own. */
  images?: Record<string, ImageConfig>;
  /** Working directory when neither the container nor its image names one; default process.cwd(). */
  cwd?: string;
  /** How often image pulls and missing secrets are retried; default 200 ms. */
  retryIntervalMs?: number;
  onOutput?: (pod: { namespace: string; name: string }, stream: "stdout" | "stderr", text: string) => void;
}

export interface RunningProcess {
  namespace: string;
  name: string;
  pid: number;
}

export interface FakeKubelet {
  nodeName: string;
  /** Pods with this image stay Pending, waiting with ErrImagePull then ImagePullBackOff, until made pullable. */
  makeImageUnpullable(image: string): void;
  makeImagePullable(image: string): void;
  /** Pods with this image fail to start: Failed, container terminated with reason StartError, exit code 128. */
  failStart(image: string, message?: string): void;
  allowStart(image: string): void;
  /** Kills the pod's process as the OOM killer would (Failed, OOMKilled, exit code 137); false when none runs. */
  oomKill(namespace: string, name: string): boolean;
  runningProcesses(): RunningProcess[];
  pid(namespace: string, name: string): number | undefined;
  /** stdout and stderr of the pod's container, interleaved as they arrived. */
  logs(namespace: string, name: string): string;
  /** Kills every process it started (SIGKILL to each process group) and waits for them. */
  close(): Promise<void>;
}

type Stage = "waiting" | "starting" | "running" | "finished";

interface PodRun {
  uid: string;
  namespace: string;
  name: string;
  container: Container;
  startTime: string;
  startedAtMs: number;
  stage: Stage;
  waitingReason?: string;
  process?: ContainerProcess;
  containerStartedAt?: string;
  deadlineSeconds?: number;
  deadlineTimer?: NodeJS.Timeout;
  retryTimer?: NodeJS.Timeout;
  killTimer?: NodeJS.Timeout;
  killAtMs?: number;
  deleting: boolean;
  endReason?: "DeadlineExceeded" | "OOMKilled";
}

const MAX_LOG_CHARS = 1_000_000;
const DEADLINE_MESSAGE = "Pod was active on the node longer than the specified deadline";

class Kubelet implements FakeKubelet {
  readonly nodeName: string;
  private readonly podType: ResourceType;
  private readonly secretType: ResourceType;
  private readonly runs = new Map<string, PodRun>();
  private readonly output = new Map<string, string>();
  private readonly unpullable = new Set<string>();
  private readonly startFailures = new Map<string, string>();
  private readonly scheduled = new Set<NodeJS.Immediate>();
  private readonly lifecycles = new Set<Promise<unknown>>();
  private readonly unsubscribe: () => void;
  private closed = false;

  constructor(private readonly options: FakeKubeletOptions) {
    this.nodeName = options.nodeName ?? "fake-node";
    const { store } = options.kube;
    this.podType = store.registry.byStorageKey("pods");
    this.secretType = store.registry.byStorageKey("secrets");
    this.unsubscribe = store.subscribe((event) => {
      if (event.storageKey === "pods") this.schedule(event.object);
    });
    for (const pod of store.list(this.podType, undefined, () => true)) this.schedule(pod);
    options.kube.setPodLogSource((namespace, name) => this.logs(namespace, name));
  }

  makeImageUnpullable(image: string): void {
    this.unpullable.add(image);
  }

  makeImagePullable(image: string): void {
    this.unpullable.delete(image);
  }

  failStart(image: string, message = `fake-kubelet: container for image "${image}" cannot start`): void {
    this.startFailures.set(image, message);
  }

  allowStart(image: string): void {
    this.startFailures.delete(image);
  }

  oomKill(namespace: string, name: string): boolean {
    const run = this.findRun(namespace, name);
    if (!run?.process || run.stage !== "running") return false;
    run.endReason = "OOMKilled";
    run.process.kill();
    return true;
  }

  runningProcesses(): RunningProcess[] {
    return [...this.runs.values()]
      .filter((run) => run.stage === "running" && run.process)
      .map((run) => ({ namespace: run.namespace, name: run.name, pid: run.process?.pid ?? 0 }));
  }

  pid(namespace: string, name: string): number | undefined {
    const run = this.findRun(namespace, name);
    return run?.stage === "running" ? run.process?.pid : undefined;
  }

  logs(namespace: string, name: string): string {
    return this.output.get(`${namespace}/${name}`) ?? "";
  }

  async close(): Promise<void> {
    this.closed = true;
    this.unsubscribe();
    for (const immediate of this.scheduled) clearImmediate(immediate);
    this.scheduled.clear();
    for (const run of this.runs.values()) {
      this.clearTimers(run);
      run.process?.kill();
    }
    await Promise.allSettled([...this.lifecycles]);
    this.options.kube.setPodLogSource(undefined);
  }

  private get store() {
    return this.options.kube.store;
  }

  private track(promise: Promise<unknown>): void {
    this.lifecycles.add(promise);
    void promise.finally(() => this.lifecycles.delete(promise));
  }

  /** Store listeners run inside a write; the kubelet reacts afterwards, like a watcher would. */
  private schedule(object: KubeObject): void {
    if (this.closed) return;
    const { namespace = "", name = "", uid = "" } = object.metadata;
    const immediate = setImmediate(() => {
      this.scheduled.delete(immediate);
      if (!this.closed) this.sync(namespace, name, uid);
    });
    this.scheduled.add(immediate);
  }

  private findRun(namespace: string, name: string): PodRun | undefined {
    return [...this.runs.values()].find((run) => run.namespace === namespace && run.name === name && run.stage !== "finished")
      ?? [...this.runs.values()].find((run) => run.namespace === namespace && run.name === name);
  }

  private currentPod(namespace: string, name: string, uid: string): Pod | undefined {
    const raw = this.store.find(this.podType, namespace, name);
    if (!raw || raw.metadata.uid !== uid) return undefined;
    const parsed = podSchema.safeParse(raw);
    return parsed.success ? parsed.data : undefined;
  }

  private sync(namespace: string, name: string, uid: string): void {
    const pod = this.currentPod(namespace, name, uid);
    const run = this.runs.get(uid);
    if (!pod) {
      if (run) this.abandon(run);
      return;
    }
    if (!pod.spec.nodeName) {
      if (!pod.metadata.deletionTimestamp) this.store.bindPod(namespace, name, this.nodeName);
      return;
    }
    if (pod.spec.nodeName !== this.nodeName) return;
    if (pod.metadata.deletionTimestamp) {
      this.terminate(pod, run);
      return;
    }
    if (run) {
      this.refreshDeadline(run, pod);
      return;
    }
    const phase = pod.status?.phase;
    if (phase === "Succeeded" || phase === "Failed") return;
    this.begin(pod);
  }

  private begin(pod: Pod): void {
    const [container] = pod.spec.containers;
    if (!container) return;
    const run: PodRun = {
      uid: pod.metadata.uid,
      namespace: pod.metadata.namespace,
      name: pod.metadata.name,
      container,
      startTime: kubeTimestamp(),
      startedAtMs: Date.now(),
      stage: "waiting",
      deleting: false,
    };
    this.runs.set(run.uid, run);
    this.output.set(`${run.namespace}/${run.name}`, "");
    this.setWaiting(run, "ContainerCreating");
    this.refreshDeadline(run, pod);
    this.track(this.attemptStart(run));
  }

  private writeStatus(run: PodRun, input: Omit<PodStatusInput, "container" | "startTime">): void {
    if (this.closed || !this.currentPod(run.namespace, run.name, run.uid)) return;
    try {
      this.store.updateStatus(this.podType, run.namespace, run.name, podStatus({ ...input, container: run.container, startTime: run.startTime }));
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
    }
  }

  private setWaiting(run: PodRun, reason: string, message?: string): void {
    if (run.waitingReason === reason) return;
    run.waitingReason = reason;
    this.writeStatus(run, { phase: "Pending", state: { waiting: { reason, ...(message ? { message } : {}) } } });
  }

  private retryLater(run: PodRun): void {
    run.retryTimer = setTimeout(() => this.track(this.attemptStart(run)), this.options.retryIntervalMs ?? 200);
  }

  private readSecret(namespace: string, name: string): Record<string, string> | undefined {
    const secret = this.store.find(this.secretType, namespace, name);
    if (!secret) return undefined;
    const data = isPlainObject(secret.data) ? secret.data : {};
    return Object.fromEntries(Object.entries(data).map(([key, value]) => [key, Buffer.from(String(value), "base64").toString("utf8")]));
  }

  private async attemptStart(run: PodRun): Promise<void> {
    if (this.closed || run.stage !== "waiting") return;
    const pod = this.currentPod(run.namespace, run.name, run.uid);
    if (!pod) return;
    const { container } = run;
    if (this.unpullable.has(container.image)) {
      const reason = run.waitingReason === "ErrImagePull" || run.waitingReason === "ImagePullBackOff" ? "ImagePullBackOff" : "ErrImagePull";
      this.setWaiting(run, reason, `Back-off pulling image "${container.image}": the fake kubelet was told it cannot be pulled`);
      this.retryLater(run);
      return;
    }

    const image = this.options.images?.[container.image];
    const command = container.command ?? image?.command;
    const args = container.command ? (container.args ?? []) : (container.args ?? image?.args ?? []);
    let containerEnv: Record<string, string>;
    try {
      containerEnv = containerEnvironment(pod, container, (namespace, name) => this.readSecret(namespace, name), this.nodeName);
    } catch (error) {
      if (!(error instanceof ContainerConfigError)) throw error;
      this.setWaiting(run, "CreateContainerConfigError", error.message);
      this.retryLater(run);
      return;
    }
    const startFailure = this.startFailures.get(container.image);
    const [executable, ...commandArgs] = (command ?? []).map((part) => expandReferences(part, containerEnv));
    if (startFailure || !executable) {
      this.finishWithoutProcess(run, startFailure ?? "no command specified");
      return;
    }

    run.stage = "starting";
    let started: ContainerProcess;
    try {
      started = await startContainerProcess({
        command: executable,
        args: [...commandArgs, ...args.map((part) => expandReferences(part, containerEnv))],
        env: {
          PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
          HOME: process.env.HOME ?? "/root",
          HOSTNAME: run.name,
          ...this.options.env,
          ...containerEnv,
          ...this.options.envOverrides,
        },
        cwd: container.workingDir ?? image?.workingDir ?? this.options.cwd ?? process.cwd(),
        onOutput: (stream, text) => this.record(run, stream, text),
      });
    } catch (error) {
      this.finishWithoutProcess(run, `failed to start container process: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    run.process = started;
    if (this.closed) {
      started.kill();
      await started.exited;
      return;
    }
    run.stage = "running";
    run.containerStartedAt = kubeTimestamp();
    this.writeStatus(run, { phase: "Running", pid: started.pid, state: { running: { startedAt: run.containerStartedAt } } });
    this.track(started.exited.then((exit) => this.onExit(run, exit)));
    // Deletion or the deadline may have arrived while the process was starting.
    const latest = this.currentPod(run.namespace, run.name, run.uid);
    if (!latest) this.abandon(run);
    else if (latest.metadata.deletionTimestamp) this.terminate(latest, run);
    else if (run.endReason === "DeadlineExceeded") this.kill(run, latest.spec.terminationGracePeriodSeconds ?? 30);
  }

  private record(run: PodRun, stream: "stdout" | "stderr", text: string): void {
    const key = `${run.namespace}/${run.name}`;
    const combined = (this.output.get(key) ?? "") + text;
    this.output.set(key, combined.length > MAX_LOG_CHARS ? combined.slice(-MAX_LOG_CHARS) : combined);
    this.options.onOutput?.({ namespace: run.namespace, name: run.name }, stream, text);
  }

  private finishWithoutProcess(run: PodRun, message: string): void {
    run.stage = "finished";
    this.clearTimers(run);
    const state: ContainerState = {
      terminated: { exitCode: 128, reason: "StartError", message, startedAt: "1970-01-01T00:00:00Z", finishedAt: kubeTimestamp() },
    };
    this.writeStatus(run, { phase: "Failed", state });
    if (run.deleting) this.removePod(run);
  }

  private onExit(run: PodRun, exit: ProcessExit): void {
    run.stage = "finished";
    this.clearTimers(run);
    const deadline = run.endReason === "DeadlineExceeded";
    const reason = run.endReason === "OOMKilled" ? "OOMKilled" : exit.exitCode === 0 ? "Completed" : "Error";
    const state: ContainerState = {
      terminated: {
        exitCode: exit.exitCode,
        reason,
        ...(run.containerStartedAt ? { startedAt: run.containerStartedAt } : {}),
        finishedAt: kubeTimestamp(),
        containerID: `fake://${run.process?.pid ?? 0}`,
      },
    };
    this.writeStatus(run, {
      phase: exit.exitCode === 0 && !deadline ? "Succeeded" : "Failed",
      state,
      ...(run.process ? { pid: run.process.pid } : {}),
      ...(deadline ? { reason: "DeadlineExceeded", message: DEADLINE_MESSAGE } : {}),
    });
    if (run.deleting) this.removePod(run);
    if (!this.currentPod(run.namespace, run.name, run.uid)) this.runs.delete(run.uid);
  }

  private refreshDeadline(run: PodRun, pod: Pod): void {
    const seconds = pod.spec.activeDeadlineSeconds;
    if (seconds === run.deadlineSeconds || run.stage === "finished") return;
    run.deadlineSeconds = seconds;
    if (run.deadlineTimer) clearTimeout(run.deadlineTimer);
    run.deadlineTimer = undefined;
    if (seconds === undefined) return;
    const remaining = run.startedAtMs + seconds * 1000 - Date.now();
    run.deadlineTimer = setTimeout(() => this.onDeadline(run), Math.max(0, remaining));
  }

  private onDeadline(run: PodRun): void {
    if (run.stage === "finished" || run.deleting) return;
    run.endReason = "DeadlineExceeded";
    if (run.stage === "waiting") {
      run.stage = "finished";
      this.clearTimers(run);
      this.writeStatus(run, {
        phase: "Failed",
        reason: "DeadlineExceeded",
        message: DEADLINE_MESSAGE,
        state: { waiting: { reason: run.waitingReason ?? "ContainerCreating" } },
      });
      return;
    }
    const pod = this.currentPod(run.namespace, run.name, run.uid);
    if (run.stage === "running") this.kill(run, pod?.spec.terminationGracePeriodSeconds ?? 30);
  }

  /** Graceful deletion: SIGTERM, SIGKILL after the grace period, and only then the pod object goes. */
  private terminate(pod: Pod, run: PodRun | undefined): void {
    if (!run || run.stage === "waiting" || run.stage === "finished") {
      if (run) {
        run.stage = "finished";
        this.clearTimers(run);
      }
      this.removePod({ namespace: pod.metadata.namespace, name: pod.metadata.name, uid: pod.metadata.uid });
      return;
    }
    run.deleting = true;
    if (run.stage === "running") {
      this.kill(run, pod.metadata.deletionGracePeriodSeconds ?? pod.spec.terminationGracePeriodSeconds ?? 30);
    }
  }

  private kill(run: PodRun, graceSeconds: number): void {
    const { process: child } = run;
    if (!child) return;
    const killAtMs = Date.now() + graceSeconds * 1000;
    if (run.killAtMs !== undefined && run.killAtMs <= killAtMs) return;
    if (run.killAtMs === undefined) child.terminate();
    run.killAtMs = killAtMs;
    if (run.killTimer) clearTimeout(run.killTimer);
    run.killTimer = setTimeout(() => child.kill(), graceSeconds * 1000);
  }

  /** The pod object vanished (force delete): nothing is left to report to, so stop at once. */
  private abandon(run: PodRun): void {
    this.clearTimers(run);
    if (run.stage === "running") run.process?.kill();
    else if (run.stage !== "starting") this.runs.delete(run.uid);
  }

  private removePod(run: { namespace: string; name: string; uid: string }): void {
    if (this.closed) return;
    try {
      this.store.delete(this.podType, run.namespace, run.name, { gracePeriodSeconds: 0, preconditions: { uid: run.uid } });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
    }
  }

  private clearTimers(run: PodRun): void {
    for (const timer of [run.deadlineTimer, run.retryTimer, run.killTimer]) if (timer) clearTimeout(timer);
    run.deadlineTimer = undefined;
    run.retryTimer = undefined;
    run.killTimer = undefined;
  }
}

/** Runs each scheduled pod's first container as a local process and reports it through /status. */
export function startFakeKubelet(options: FakeKubeletOptions): FakeKubelet {
  return new Kubelet(options);
}
