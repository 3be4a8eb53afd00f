import { readFileSync } from "node:fs";
import { CoreV1Api, type V1Container, type V1Pod } from "@kubernetes/client-node";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startFakeKube, startFakeKubelet, type FakeKube, type FakeKubelet, type KubeObject } from "./index.js";
import { WatchRecorder } from "./test-support.js";

const NAMESPACE = "default";
const LONG_RUNNING = "console.log('ready'); setInterval(() => {}, 1000);";

let kube: FakeKube;
let kubelet: FakeKubelet;
let core: CoreV1Api;

interface ContainerStateView {
  waiting?: { reason?: string; message?: string };
  running?: { startedAt?: string };
  terminated?: { exitCode?: number; reason?: string; message?: string };
}

function status(object: KubeObject | undefined): { phase?: string; reason?: string; containerStatuses?: Array<{ state?: ContainerStateView }> } {
  return (object?.status ?? {}) as never;
}

function containerState(object: KubeObject | undefined): ContainerStateView {
  return status(object).containerStatuses?.[0]?.state ?? {};
}

/** Zombies count as dead: orphans reparented to an init that does not reap them stay as zombies. */
function isAlive(pid: number): boolean {
  try {
    const state = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0];
    return state !== undefined && state !== "Z";
  } catch {
    return false;
  }
}

function nodePod(name: string, script: string, extra: Partial<V1Container> = {}, spec: Partial<NonNullable<V1Pod["spec"]>> = {}): V1Pod {
  return {
    metadata: { name },
    spec: { restartPolicy: "Never", containers: [{ name: "main", image: "node:local", command: ["node", "-e", script], ...extra }], ...spec },
  };
}

async function createPod(body: V1Pod): Promise<void> {
  await core.createNamespacedPod({ namespace: NAMESPACE, body });
}

function waitForPhase(name: string, phase: string): Promise<KubeObject | undefined> {
  return kube.waitFor("pods", NAMESPACE, name, (object) => status(object).phase === phase);
}

async function runningPid(name: string): Promise<number> {
  await waitForPhase(name, "Running");
  await expect.poll(() => kubelet.logs(NAMESPACE, name)).toContain("ready");
  const pid = kubelet.pid(NAMESPACE, name);
  if (pid === undefined) throw new Error(`no process for ${name}`);
  return pid;
}

beforeEach(async () => {
  kube = await startFakeKube();
  kubelet = startFakeKubelet({ kube, env: { FROM_KUBELET: "base" }, images: { "agent:dev": { command: ["node", "-e"], args: ["console.log('entrypoint ' + process.argv.length)"] } } });
  core = kube.kubeConfig.makeApiClient(CoreV1Api);
});

afterEach(async () => {
  await kubelet.close();
  await kube.close();
});

describe("fake kubelet", () => {
  it("runs the container command with env from a secret and the downward API, through Running to Succeeded", async () => {
    await core.createNamespacedSecret({ namespace: NAMESPACE, body: { metadata: { name: "creds" }, stringData: { token: "s3cret" } } });
    const watch = await WatchRecorder.start(kube.kubeConfig, "/api/v1/namespaces/default/pods", {});
    const script = "console.log(JSON.stringify({ token: process.env.TOKEN, pod: process.env.POD_NAME, ns: process.env.POD_NAMESPACE, greeting: process.env.GREETING, base: process.env.FROM_KUBELET }))";
    await createPod(
      nodePod("job", script, {
        env: [
          { name: "TOKEN", valueFrom: { secretKeyRef: { name: "creds", key: "token" } } },
          { name: "POD_NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
          { name: "POD_NAMESPACE", valueFrom: { fieldRef: { fieldPath: "metadata.namespace" } } },
          { name: "GREETING", value: "hello $(POD_NAME)" },
        ],
      }),
    );

    const done = await waitForPhase("job", "Succeeded");
    expect(containerState(done).terminated).toMatchObject({ exitCode: 0, reason: "Completed" });
    expect(JSON.parse(kubelet.logs(NAMESPACE, "job"))).toEqual({ token: "s3cret", pod: "job", ns: "default", greeting: "hello job", base: "base" });
    expect(await core.readNamespacedPodLog({ name: "job", namespace: NAMESPACE })).toContain("s3cret");

    const phases = watch.events.map((event) => (event.object as KubeObject).status).map((value) => (value as { phase?: string }).phase);
    expect(phases).toEqual(expect.arrayContaining(["Pending", "Running", "Succeeded"]));
    expect(phases.indexOf("Running")).toBeLessThan(phases.indexOf("Succeeded"));
    expect(kube.get("pods", NAMESPACE, "job")?.spec).toMatchObject({ nodeName: "fake-node" });
    watch.stop();
  });

  it("uses the image entrypoint when the container has no command", async () => {
    await createPod({ metadata: { name: "entry" }, spec: { restartPolicy: "Never", containers: [{ name: "main", image: "agent:dev" }] } });
    await waitForPhase("entry", "Succeeded");
    expect(kubelet.logs(NAMESPACE, "entry")).toContain("entrypoint");
  });

  it("reports a non-zero exit as Failed with reason Error and the exit code", async () => {
    await createPod(nodePod("fails", "process.exit(3)"));
    const failed = await waitForPhase("fails", "Failed");
    expect(containerState(failed).terminated).toMatchObject({ exitCode: 3, reason: "Error" });
  });

  it("on pod delete sends SIGTERM, keeps the pod terminating until the process exits, then removes it", async () => {
    const script = "process.on('SIGTERM', () => { console.log('got SIGTERM'); setTimeout(() => process.exit(0), 50); }); " + LONG_RUNNING;
    await createPod(nodePod("graceful", script));
    const pid = await runningPid("graceful");
    const watch = await WatchRecorder.start(kube.kubeConfig, "/api/v1/namespaces/default/pods", { resourceVersion: String(kube.resourceVersion()) });

    const deleting = await core.deleteNamespacedPod({ name: "graceful", namespace: NAMESPACE });
    expect(deleting.metadata?.deletionTimestamp).toBeDefined();
    await watch.waitForEvent((event) => event.type === "DELETED");
    expect(kubelet.logs(NAMESPACE, "graceful")).toContain("got SIGTERM");
    expect(isAlive(pid)).toBe(false);
    const types = watch.events.map((event) => event.type);
    expect(types[0]).toBe("MODIFIED");
    expect(types.at(-1)).toBe("DELETED");
    watch.stop();
  });

  it("sends SIGTERM to the main process only, and kills what it leaves behind once it exits", async () => {
    const script = [
      "const { spawn } = require('node:child_process');",
      "const child = spawn(process.execPath, ['-e', \"process.on('SIGTERM', () => console.log('child got SIGTERM')); setInterval(() => {}, 1000)\"], { stdio: 'inherit' });",
      "console.log('child ' + child.pid);",
      "process.on('SIGTERM', () => setTimeout(() => process.exit(0), 50));",
      LONG_RUNNING,
    ].join("\n");
    await createPod(nodePod("parent", script));
    await runningPid("parent");
    const childPid = Number(/child (\d+)/.exec(kubelet.logs(NAMESPACE, "parent"))?.[1]);
    expect(isAlive(childPid)).toBe(true);

    await core.deleteNamespacedPod({ name: "parent", namespace: NAMESPACE });
    await kube.waitFor("pods", NAMESPACE, "parent", (object) => object === undefined);
    expect(kubelet.logs(NAMESPACE, "parent")).not.toContain("child got SIGTERM");
    await expect.poll(() => isAlive(childPid)).toBe(false);
  });

  it("kills a process that ignores SIGTERM after terminationGracePeriodSeconds", async () => {
    const script = "process.on('SIGTERM', () => console.log('ignoring SIGTERM')); " + LONG_RUNNING;
    await createPod(nodePod("stubborn", script, {}, { terminationGracePeriodSeconds: 1 }));
    const pid = await runningPid("stubborn");
    const watch = await WatchRecorder.start(kube.kubeConfig, "/api/v1/namespaces/default/pods", { resourceVersion: String(kube.resourceVersion()) });

    await core.deleteNamespacedPod({ name: "stubborn", namespace: NAMESPACE });
    await watch.waitForEvent((event) => event.type === "DELETED");
    expect(kubelet.logs(NAMESPACE, "stubborn")).toContain("ignoring SIGTERM");
    expect(isAlive(pid)).toBe(false);
    const lastStatus = watch.events.filter((event) => event.type === "MODIFIED").at(-1)?.object as KubeObject | undefined;
    expect(containerState(lastStatus).terminated).toMatchObject({ exitCode: 137, reason: "Error" });
    watch.stop();
  });

  it("fails a pod that outlives activeDeadlineSeconds with reason DeadlineExceeded", async () => {
    await createPod(nodePod("slow", LONG_RUNNING, {}, { activeDeadlineSeconds: 1, terminationGracePeriodSeconds: 0 }));
    const pid = await runningPid("slow");
    const failed = await waitForPhase("slow", "Failed");
    expect(status(failed)).toMatchObject({ phase: "Failed", reason: "DeadlineExceeded" });
    expect(isAlive(pid)).toBe(false);
  });

  it("keeps pods with an unpullable image Pending in ErrImagePull / ImagePullBackOff until the image can be pulled", async () => {
    kubelet.makeImageUnpullable("broken:1");
    await createPod({ metadata: { name: "pull" }, spec: { restartPolicy: "Never", containers: [{ name: "main", image: "broken:1", command: ["node", "-e", "0"] }] } });
    const erring = await kube.waitFor("pods", NAMESPACE, "pull", (object) => containerState(object).waiting?.reason === "ErrImagePull");
    expect(status(erring).phase).toBe("Pending");
    const backingOff = await kube.waitFor("pods", NAMESPACE, "pull", (object) => containerState(object).waiting?.reason === "ImagePullBackOff");
    expect(status(backingOff).phase).toBe("Pending");

    kubelet.makeImagePullable("broken:1");
    await waitForPhase("pull", "Succeeded");
  });

  it("fails a pod whose process cannot start with StartError", async () => {
    kubelet.failStart("node:local");
    await createPod(nodePod("nostart", "0"));
    const injected = await waitForPhase("nostart", "Failed");
    expect(containerState(injected).terminated).toMatchObject({ exitCode: 128, reason: "StartError" });

    await createPod({ metadata: { name: "missing-binary" }, spec: { restartPolicy: "Never", containers: [{ name: "main", image: "other", command: ["/nonexistent/binary"] }] } });
    const missing = await waitForPhase("missing-binary", "Failed");
    expect(containerState(missing).terminated).toMatchObject({ exitCode: 128, reason: "StartError" });
  });

  it("waits with CreateContainerConfigError until a referenced secret exists", async () => {
    await createPod(nodePod("needs-secret", "console.log(process.env.KEY)", { env: [{ name: "KEY", valueFrom: { secretKeyRef: { name: "late", key: "k" } } }] }));
    const waiting = await kube.waitFor("pods", NAMESPACE, "needs-secret", (object) => containerState(object).waiting?.reason === "CreateContainerConfigError");
    expect(containerState(waiting).waiting?.message).toBe('secret "late" not found');
    await core.createNamespacedSecret({ namespace: NAMESPACE, body: { metadata: { name: "late" }, stringData: { k: "arrived" } } });
    await waitForPhase("needs-secret", "Succeeded");
    expect(kubelet.logs(NAMESPACE, "needs-secret")).toContain("arrived");
  });

  it("reports an OOM kill as OOMKilled with exit code 137", async () => {
    await createPod(nodePod("hungry", LONG_RUNNING));
    await runningPid("hungry");
    expect(kubelet.oomKill(NAMESPACE, "hungry")).toBe(true);
    const failed = await waitForPhase("hungry", "Failed");
    expect(containerState(failed).terminated).toMatchObject({ exitCode: 137, reason: "OOMKilled" });
  });

  it("terminates the pods of a deleted owner through garbage collection", async () => {
    const owner = await core.createNamespacedSecret({ namespace: NAMESPACE, body: { metadata: { name: "owner" } } });
    const ownerReferences = [{ apiVersion: "v1", kind: "Secret", name: "owner", uid: owner.metadata?.uid ?? "" }];
    await createPod({ ...nodePod("owned", LONG_RUNNING), metadata: { name: "owned", ownerReferences } });
    const pid = await runningPid("owned");
    await core.deleteNamespacedSecret({ name: "owner", namespace: NAMESPACE });
    await kube.waitFor("pods", NAMESPACE, "owned", (object) => object === undefined);
    expect(isAlive(pid)).toBe(false);
  });

  it("kills every process it started on close", async () => {
    await createPod(nodePod("left-running", "process.on('SIGTERM', () => {}); " + LONG_RUNNING));
    const pid = await runningPid("left-running");
    expect(kubelet.runningProcesses()).toEqual([{ namespace: NAMESPACE, name: "left-running", pid }]);
    await kubelet.close();
    expect(isAlive(pid)).toBe(false);
  });
});
