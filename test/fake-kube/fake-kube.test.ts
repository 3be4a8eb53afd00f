import { fileURLToPath } from "node:url";
import {
  ApisApi,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  PatchStrategy,
  VersionApi,
  makeInformer,
  setHeaderOptions,
  type KubernetesObject,
  type V1Pod,
} from "@kubernetes/client-node";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readCrdFile, startFakeKube, type FakeKube } from "./index.js";
import { failureStatus, WatchRecorder } from "./test-support.js";

const WIDGET_CRD = fileURLToPath(new URL("./fixtures/widget-crd.yaml", import.meta.url));
const PROJECT_CRD = fileURLToPath(new URL("../../crds/agentsession.yaml", import.meta.url));
const widgets = { group: "example.dev", version: "v1", plural: "widgets", namespace: "default" } as const;
const WIDGETS_PATH = "/apis/example.dev/v1/namespaces/default/widgets";
const mergePatch = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);
const jsonPatch = setHeaderOptions("Content-Type", PatchStrategy.JsonPatch);

interface Widget extends KubernetesObject {
  spec: { size: number; mode: string; color?: string; extra?: Record<string, unknown> };
  status?: { phase?: string; observedGeneration?: number };
  metadata: NonNullable<KubernetesObject["metadata"]>;
}

function widget(name: string, spec: Record<string, unknown> = { size: 1, mode: "run" }, metadata: Record<string, unknown> = {}) {
  return { apiVersion: "example.dev/v1", kind: "Widget", metadata: { name, ...metadata }, spec };
}

function pod(name: string, labels: Record<string, string> = {}, metadata: Record<string, unknown> = {}): V1Pod {
  return { metadata: { name, labels, ...metadata }, spec: { containers: [{ name: "main", image: "busybox" }] } };
}

let kube: FakeKube;
let custom: CustomObjectsApi;
let core: CoreV1Api;

async function start(options: Parameters<typeof startFakeKube>[0] = {}): Promise<void> {
  kube = await startFakeKube({ crds: await readCrdFile(WIDGET_CRD), bookmarkIntervalMs: 60_000, ...options });
  custom = kube.kubeConfig.makeApiClient(CustomObjectsApi);
  core = kube.kubeConfig.makeApiClient(CoreV1Api);
}

async function createWidget(body: unknown): Promise<Widget> {
  return (await custom.createNamespacedCustomObject({ ...widgets, body })) as Widget;
}

async function getWidget(name: string): Promise<Widget> {
  return (await custom.getNamespacedCustomObject({ ...widgets, name })) as Widget;
}

beforeEach(async () => {
  await start();
});

afterEach(async () => {
  await kube.close();
});

describe("custom resources", () => {
  it("creates, reads, lists, replaces, patches and deletes", async () => {
    const created = await createWidget(widget("alpha"));
    expect(created.metadata).toMatchObject({ name: "alpha", namespace: "default", generation: 1 });
    expect(created.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(Number(created.metadata.resourceVersion)).toBeGreaterThan(0);

    expect((await getWidget("alpha")).spec).toEqual({ size: 1, mode: "run", color: "blue" });
    const list = (await custom.listNamespacedCustomObject({ ...widgets })) as { kind: string; items: Widget[]; metadata: { resourceVersion: string } };
    expect(list.kind).toBe("WidgetList");
    expect(list.items.map((item) => item.metadata.name)).toEqual(["alpha"]);

    const replaced = (await custom.replaceNamespacedCustomObject({
      ...widgets,
      name: "alpha",
      body: { ...created, spec: { ...created.spec, size: 2 } },
    })) as Widget;
    expect(replaced.spec.size).toBe(2);
    expect(replaced.metadata.generation).toBe(2);

    const merged = (await custom.patchNamespacedCustomObject({ ...widgets, name: "alpha", body: { spec: { mode: "stop" }, metadata: { labels: { team: "a" } } } }, mergePatch)) as Widget;
    expect(merged.spec).toMatchObject({ size: 2, mode: "stop" });
    expect(merged.metadata.generation).toBe(3);
    expect(merged.metadata.labels).toEqual({ team: "a" });

    const labelledOnly = (await custom.patchNamespacedCustomObject({ ...widgets, name: "alpha", body: { metadata: { labels: { team: "b" } } } }, mergePatch)) as Widget;
    expect(labelledOnly.metadata.generation).toBe(3);

    const jsonPatched = (await custom.patchNamespacedCustomObject(
      { ...widgets, name: "alpha", body: [{ op: "replace", path: "/spec/size", value: 7 }] },
      jsonPatch,
    )) as Widget;
    expect(jsonPatched.spec.size).toBe(7);

    await custom.deleteNamespacedCustomObject({ ...widgets, name: "alpha" });
    const missing = await failureStatus(getWidget("alpha"));
    expect(missing).toMatchObject({
      code: 404,
      kind: "Status",
      reason: "NotFound",
      message: 'widgets.example.dev "alpha" not found',
      details: { name: "alpha", group: "example.dev", kind: "widgets" },
    });
  });

  it("rejects objects that break the CRD schema with 422 Invalid and field causes", async () => {
    const wrongEnum = await failureStatus(createWidget(widget("bad", { size: 1, mode: "sprint" })));
    expect(wrongEnum).toMatchObject({ code: 422, kind: "Status", reason: "Invalid", details: { name: "bad", group: "example.dev", kind: "Widget" } });
    expect(wrongEnum.details?.causes).toEqual([
      { reason: "FieldValueNotSupported", field: "spec.mode", message: 'Unsupported value: "sprint": supported values: "run", "stop"' },
    ]);

    const missingField = await failureStatus(createWidget(widget("bad", { mode: "run" })));
    expect(missingField.details?.causes).toEqual([{ reason: "FieldValueRequired", field: "spec.size", message: "Required value" }]);

    const tooSmall = await failureStatus(createWidget(widget("bad", { size: 0, mode: "run" })));
    expect(tooSmall).toMatchObject({ code: 422, reason: "Invalid" });

    await createWidget(widget("good"));
    const badPatch = await failureStatus(custom.patchNamespacedCustomObject({ ...widgets, name: "good", body: { spec: { size: "big" } } }, mergePatch));
    expect(badPatch).toMatchObject({ code: 422, reason: "Invalid" });
    expect((await getWidget("good")).spec.size).toBe(1);
  });

  it("prunes unknown fields except where the schema preserves them", async () => {
    const created = await createWidget({ ...widget("pruned", { size: 1, mode: "run", bogus: true, extra: { anything: [1, 2] } }), topLevel: "x" });
    expect(created.spec).toEqual({ size: 1, mode: "run", color: "blue", extra: { anything: [1, 2] } });
    expect(created).not.toHaveProperty("topLevel");
  });

  it("serves the project's AgentSession CRD with its schema", async () => {
    await kube.close();
    kube = await startFakeKube({ crds: await readCrdFile(PROJECT_CRD) });
    custom = kube.kubeConfig.makeApiClient(CustomObjectsApi);
    const coordinates = { group: "browser-agents.dev", version: "v1alpha1", plural: "agentsessions", namespace: "default" };
    const spec = { sessionId: "0b7e0c4e-3f7a-4c58-9a59-5d0c1c7f1a11", tenant: "t1", desiredState: "run", apiUrl: "http://127.0.0.1:1", image: "agent:dev" };
    const body = { apiVersion: "browser-agents.dev/v1alpha1", kind: "AgentSession", metadata: { name: "session-1" }, spec };
    await custom.createNamespacedCustomObject({ ...coordinates, body });
    const invalid = await failureStatus(
      custom.createNamespacedCustomObject({ ...coordinates, body: { ...body, metadata: { name: "session-2" }, spec: { ...spec, sessionId: "not-a-uuid" } } }),
    );
    expect(invalid).toMatchObject({ code: 422, reason: "Invalid" });
  });
});

describe("status subresource", () => {
  it("changes only status through /status and ignores status on main writes", async () => {
    const created = await createWidget({ ...widget("s"), status: { phase: "Sneaky" } });
    expect(created.status).toBeUndefined();

    const withStatus = (await custom.patchNamespacedCustomObjectStatus(
      { ...widgets, name: "s", body: { status: { phase: "Ready", observedGeneration: 1 }, spec: { size: 99 } } },
      mergePatch,
    )) as Widget;
    expect(withStatus.status).toEqual({ phase: "Ready", observedGeneration: 1 });
    expect(withStatus.spec.size).toBe(1);
    expect(withStatus.metadata.generation).toBe(1);

    const replaced = (await custom.replaceNamespacedCustomObject({
      ...widgets,
      name: "s",
      body: { ...withStatus, spec: { ...withStatus.spec, size: 3 }, status: { phase: "Overwritten" } },
    })) as Widget;
    expect(replaced.status).toEqual({ phase: "Ready", observedGeneration: 1 });
    expect(replaced.spec.size).toBe(3);

    const statusPut = (await custom.replaceNamespacedCustomObjectStatus({
      ...widgets,
      name: "s",
      body: { ...replaced, status: { phase: "Done" } },
    })) as Widget;
    expect(statusPut.status).toEqual({ phase: "Done" });
  });
});

describe("resourceVersion and conflicts", () => {
  it("answers 409 Conflict for a stale resourceVersion and 409 AlreadyExists for a duplicate name", async () => {
    const created = await createWidget(widget("c"));
    await custom.patchNamespacedCustomObject({ ...widgets, name: "c", body: { spec: { size: 2 } } }, mergePatch);

    const stalePut = await failureStatus(custom.replaceNamespacedCustomObject({ ...widgets, name: "c", body: { ...created, spec: { ...created.spec, size: 5 } } }));
    expect(stalePut).toMatchObject({
      code: 409,
      kind: "Status",
      reason: "Conflict",
      message: 'Operation cannot be fulfilled on widgets.example.dev "c": the object has been modified; please apply your changes to the latest version and try again',
      details: { name: "c", group: "example.dev", kind: "widgets" },
    });
    const stalePatch = await failureStatus(
      custom.patchNamespacedCustomObject({ ...widgets, name: "c", body: { metadata: { resourceVersion: created.metadata.resourceVersion }, spec: { size: 9 } } }, mergePatch),
    );
    expect(stalePatch).toMatchObject({ code: 409, reason: "Conflict" });
    expect((await getWidget("c")).spec.size).toBe(2);

    expect(await failureStatus(createWidget(widget("c")))).toMatchObject({
      code: 409,
      reason: "AlreadyExists",
      message: 'widgets.example.dev "c" already exists',
    });
  });

  it("refuses an unconditional PUT of a custom resource, like the real server", async () => {
    const created = await createWidget(widget("u"));
    const { resourceVersion: _dropped, ...metadata } = created.metadata;
    const result = await failureStatus(custom.replaceNamespacedCustomObject({ ...widgets, name: "u", body: { ...created, metadata } }));
    expect(result).toMatchObject({ code: 422, reason: "Invalid" });
  });

  it("conflicts on stale leases through CoordinationV1Api", async () => {
    const coordination = kube.kubeConfig.makeApiClient(CoordinationV1Api);
    const lease = await coordination.createNamespacedLease({
      namespace: "default",
      body: { metadata: { name: "leader" }, spec: { holderIdentity: "a", leaseDurationSeconds: 15 } },
    });
    await coordination.replaceNamespacedLease({ name: "leader", namespace: "default", body: { ...lease, spec: { ...lease.spec, holderIdentity: "b" } } });
    const result = await failureStatus(
      coordination.replaceNamespacedLease({ name: "leader", namespace: "default", body: { ...lease, spec: { ...lease.spec, holderIdentity: "c" } } }),
    );
    expect(result).toMatchObject({ code: 409, reason: "Conflict" });
    expect((await coordination.readNamespacedLease({ name: "leader", namespace: "default" })).spec?.holderIdentity).toBe("b");
  });
});

describe("watch", () => {
  it("streams ADDED, MODIFIED and DELETED from a resourceVersion, and bookmarks", async () => {
    await createWidget(widget("before"));
    const list = (await custom.listNamespacedCustomObject({ ...widgets })) as { metadata: { resourceVersion: string } };
    const watch = await WatchRecorder.start(kube.kubeConfig, WIDGETS_PATH, { resourceVersion: list.metadata.resourceVersion, allowWatchBookmarks: true });

    await createWidget(widget("w"));
    await custom.patchNamespacedCustomObject({ ...widgets, name: "w", body: { spec: { size: 4 } } }, mergePatch);
    await custom.deleteNamespacedCustomObject({ ...widgets, name: "w" });
    await watch.waitForEvent((event) => event.type === "DELETED");
    expect(watch.events.map((event) => [event.type, event.object.metadata?.name])).toEqual([
      ["ADDED", "w"],
      ["MODIFIED", "w"],
      ["DELETED", "w"],
    ]);

    kube.sendBookmarks();
    const bookmark = await watch.waitForEvent((event) => event.type === "BOOKMARK");
    expect(bookmark.object).toEqual({ kind: "Widget", apiVersion: "example.dev/v1", metadata: { resourceVersion: String(kube.resourceVersion()) } });
    watch.stop();
  });

  it("sends bookmarks periodically to watches that ask for them", async () => {
    await kube.close();
    await start({ bookmarkIntervalMs: 20 });
    const watch = await WatchRecorder.start(kube.kubeConfig, WIDGETS_PATH, { resourceVersion: String(kube.resourceVersion()), allowWatchBookmarks: true });
    await watch.waitForEvent((event) => event.type === "BOOKMARK");
    watch.stop();
  });

  it("starts with the current objects when no resourceVersion is given", async () => {
    await createWidget(widget("existing"));
    const watch = await WatchRecorder.start(kube.kubeConfig, WIDGETS_PATH, {});
    const added = await watch.waitForEvent((event) => event.type === "ADDED");
    expect(added.object.metadata?.name).toBe("existing");
    watch.stop();
  });

  it("answers an ERROR event with a 410 Status once history has expired", async () => {
    const created = await createWidget(widget("old"));
    await custom.patchNamespacedCustomObject({ ...widgets, name: "old", body: { spec: { size: 2 } } }, mergePatch);
    kube.expireHistory();

    const watch = await WatchRecorder.start(kube.kubeConfig, WIDGETS_PATH, { resourceVersion: created.metadata.resourceVersion ?? "" });
    const error = await watch.waitForEvent((event) => event.type === "ERROR");
    expect(error.object).toMatchObject({ kind: "Status", code: 410, reason: "Expired" });
    await watch.ended();

    // A resourceVersion from after the expiry still resumes.
    const fresh = await WatchRecorder.start(kube.kubeConfig, WIDGETS_PATH, { resourceVersion: String(kube.resourceVersion()) });
    await createWidget(widget("new"));
    await fresh.waitForEvent((event) => event.type === "ADDED" && event.object.metadata?.name === "new");
    fresh.stop();
  });

  it("forgets the oldest changes beyond the configured history window", async () => {
    await kube.close();
    await start({ historyLimit: 2 });
    const zero = await createWidget(widget("zero"));
    const first = await createWidget(widget("a"));
    await createWidget(widget("b"));
    await createWidget(widget("c"));
    const watch = await WatchRecorder.start(kube.kubeConfig, WIDGETS_PATH, { resourceVersion: zero.metadata.resourceVersion ?? "" });
    expect((await watch.waitForEvent((event) => event.type === "ERROR")).object.code).toBe(410);

    const resumable = await WatchRecorder.start(kube.kubeConfig, WIDGETS_PATH, { resourceVersion: first.metadata.resourceVersion ?? "" });
    await resumable.waitForEvent((event) => event.type === "ADDED" && event.object.metadata?.name === "c");
    expect(resumable.events.map((event) => event.object.metadata?.name)).toEqual(["b", "c"]);
    resumable.stop();
  });

  it("ends open watches on dropWatches, and a resumed watch misses nothing", async () => {
    const watch = await WatchRecorder.start(kube.kubeConfig, WIDGETS_PATH, { resourceVersion: String(kube.resourceVersion()) });
    await createWidget(widget("one"));
    const seen = await watch.waitForEvent((event) => event.type === "ADDED");
    expect(kube.dropWatches()).toBe(1);
    await watch.ended();
    expect(kube.openWatchCount()).toBe(0);

    await createWidget(widget("two"));
    const resumed = await WatchRecorder.start(kube.kubeConfig, WIDGETS_PATH, { resourceVersion: seen.object.metadata?.resourceVersion ?? "" });
    const added = await resumed.waitForEvent((event) => event.type === "ADDED");
    expect(added.object.metadata?.name).toBe("two");
    resumed.stop();
  });

  it("ends a watch cleanly after its timeoutSeconds", async () => {
    const watch = await WatchRecorder.start(kube.kubeConfig, WIDGETS_PATH, { timeoutSeconds: 1 });
    expect((await watch.ended()).error).toBeNull();
    expect(kube.openWatchCount()).toBe(0);
  });

  it("reports an abruptly cut watch as an error", async () => {
    const watch = await WatchRecorder.start(kube.kubeConfig, WIDGETS_PATH, {});
    kube.dropWatches({ abrupt: true });
    const end = await watch.ended();
    expect(end.error).toBeTruthy();
  });

  it("keeps a client-node informer in step across dropped watches and expired history", async () => {
    const informer = makeInformer<KubernetesObject>(
      kube.kubeConfig,
      WIDGETS_PATH,
      async () => (await custom.listNamespacedCustomObject({ ...widgets })) as { items: KubernetesObject[]; metadata: { resourceVersion: string } } as never,
    );
    const names = (): string[] => informer.list("default").map((item) => item.metadata?.name ?? "").sort();
    await informer.start();
    await createWidget(widget("i1"));
    await kube.waitFor("widgets", "default", "i1", (object) => object !== undefined);
    await expect.poll(names).toEqual(["i1"]);

    kube.expireHistory();
    await createWidget(widget("i2"));
    kube.dropWatches();
    await expect.poll(names).toEqual(["i1", "i2"]);
    await custom.deleteNamespacedCustomObject({ ...widgets, name: "i1" });
    await expect.poll(names).toEqual(["i2"]);
    await informer.stop();
  });
});

describe("deletion", () => {
  it("keeps an object with finalizers until they are removed, then deletes it", async () => {
    await createWidget(widget("f", undefined, { finalizers: ["example.dev/cleanup"] }));
    const watch = await WatchRecorder.start(kube.kubeConfig, WIDGETS_PATH, { resourceVersion: String(kube.resourceVersion()) });

    const deleting = (await custom.deleteNamespacedCustomObject({ ...widgets, name: "f" })) as Widget;
    expect(deleting.metadata.deletionTimestamp).toBeDefined();
    const stillThere = await getWidget("f");
    expect(stillThere.metadata.deletionTimestamp).toBeDefined();
    expect(stillThere.metadata.finalizers).toEqual(["example.dev/cleanup"]);
    await watch.waitForEvent((event) => event.type === "MODIFIED" && event.object.metadata?.deletionTimestamp !== undefined);

    const forbidden = await failureStatus(custom.patchNamespacedCustomObject({ ...widgets, name: "f", body: { metadata: { finalizers: ["example.dev/cleanup", "another"] } } }, mergePatch));
    expect(forbidden).toMatchObject({ code: 422 });

    await custom.patchNamespacedCustomObject({ ...widgets, name: "f", body: { metadata: { finalizers: null } } }, mergePatch);
    await watch.waitForEvent((event) => event.type === "DELETED");
    expect(await failureStatus(getWidget("f"))).toMatchObject({ code: 404 });
    watch.stop();
  });

  it("deletes dependents whose owner is gone (background garbage collection)", async () => {
    const owner = await createWidget(widget("owner"));
    const ownerReferences = [{ apiVersion: "example.dev/v1", kind: "Widget", name: "owner", uid: owner.metadata.uid ?? "", controller: true, blockOwnerDeletion: true }];
    await core.createNamespacedSecret({ namespace: "default", body: { metadata: { name: "owned-secret", ownerReferences }, stringData: { token: "t" } } });
    await core.createNamespacedPod({ namespace: "default", body: pod("owned-pod", {}, { ownerReferences }) });
    await core.createNamespacedSecret({ namespace: "default", body: { metadata: { name: "unrelated" } } });

    await custom.deleteNamespacedCustomObject({ ...widgets, name: "owner", propagationPolicy: "Background" });
    await kube.waitFor("secrets", "default", "owned-secret", (object) => object === undefined);
    await kube.waitFor("pods", "default", "owned-pod", (object) => object === undefined);
    expect(kube.get("secrets", "default", "unrelated")).toBeDefined();
  });

  it("orphans dependents with propagationPolicy Orphan and deletes them first with Foreground", async () => {
    const orphanOwner = await createWidget(widget("orphan-owner"));
    const refTo = (owner: Widget) => [{ apiVersion: "example.dev/v1", kind: "Widget", name: owner.metadata.name ?? "", uid: owner.metadata.uid ?? "" }];
    await core.createNamespacedSecret({ namespace: "default", body: { metadata: { name: "kept", ownerReferences: refTo(orphanOwner) } } });
    await custom.deleteNamespacedCustomObject({ ...widgets, name: "orphan-owner", propagationPolicy: "Orphan" });
    await kube.waitFor("widgets", "default", "orphan-owner", (object) => object === undefined);
    expect(kube.get("secrets", "default", "kept")?.metadata.ownerReferences).toBeUndefined();

    const foregroundOwner = await createWidget(widget("fg-owner"));
    await core.createNamespacedSecret({ namespace: "default", body: { metadata: { name: "first-to-go", ownerReferences: refTo(foregroundOwner) } } });
    await custom.deleteNamespacedCustomObject({ ...widgets, name: "fg-owner", propagationPolicy: "Foreground" });
    await kube.waitFor("widgets", "default", "fg-owner", (object) => object === undefined);
    expect(kube.get("secrets", "default", "first-to-go")).toBeUndefined();
  });

  it("answers a Success Status for deleted secrets and honours uid preconditions", async () => {
    const secret = await core.createNamespacedSecret({ namespace: "default", body: { metadata: { name: "s" }, stringData: { key: "value" } } });
    expect(secret.data).toEqual({ key: Buffer.from("value").toString("base64") });
    expect(secret).not.toHaveProperty("stringData");
    const wrongUid = await failureStatus(core.deleteNamespacedSecret({ name: "s", namespace: "default", body: { preconditions: { uid: "other" } } }));
    expect(wrongUid).toMatchObject({ code: 409, reason: "Conflict" });
    const status = await core.deleteNamespacedSecret({ name: "s", namespace: "default" });
    expect(status).toMatchObject({ kind: "Status", status: "Success", details: { name: "s", kind: "secrets" } });
  });
});

describe("selectors", () => {
  beforeEach(async () => {
    await core.createNamespacedPod({ namespace: "default", body: pod("web-1", { app: "web", tier: "front" }) });
    await core.createNamespacedPod({ namespace: "default", body: pod("web-2", { app: "web", tier: "back" }) });
    await core.createNamespacedPod({ namespace: "default", body: pod("db-1", { app: "db" }) });
    await core.createNamespacedPod({ namespace: "other", body: pod("web-3", { app: "web" }) });
  });

  async function names(labelSelector?: string, fieldSelector?: string): Promise<string[]> {
    const list = await core.listNamespacedPod({ namespace: "default", ...(labelSelector ? { labelSelector } : {}), ...(fieldSelector ? { fieldSelector } : {}) });
    return list.items.map((item) => item.metadata?.name ?? "");
  }

  it("filters lists by label and field selectors", async () => {
    expect(await names("app=web")).toEqual(["web-1", "web-2"]);
    expect(await names("app==web,tier!=back")).toEqual(["web-1"]);
    expect(await names("tier!=back")).toEqual(["db-1", "web-1"]);
    expect(await names("app in (db, web),tier notin (front)")).toEqual(["db-1", "web-2"]);
    expect(await names("tier")).toEqual(["web-1", "web-2"]);
    expect(await names("!tier")).toEqual(["db-1"]);
    expect(await names(undefined, "metadata.name=web-2")).toEqual(["web-2"]);
    expect(await names(undefined, "metadata.name!=web-2")).toEqual(["db-1", "web-1"]);
    const everywhere = await core.listPodForAllNamespaces({ labelSelector: "app=web" });
    expect(everywhere.items.map((item) => `${item.metadata?.namespace}/${item.metadata?.name}`)).toEqual(["default/web-1", "default/web-2", "other/web-3"]);
    expect(await failureStatus(names("app in web"))).toMatchObject({ code: 400, reason: "BadRequest" });
  });

  it("reports objects leaving a watch's label selection as DELETED", async () => {
    const watch = await WatchRecorder.start(kube.kubeConfig, "/api/v1/namespaces/default/pods", { labelSelector: "tier=front" });
    await watch.waitForEvent((event) => event.type === "ADDED");
    await core.patchNamespacedPod({ name: "web-1", namespace: "default", body: { metadata: { labels: { tier: "middle" } } } }, mergePatch);
    await core.patchNamespacedPod({ name: "web-2", namespace: "default", body: { metadata: { labels: { tier: "front" } } } }, mergePatch);
    await watch.waitForEvent((event) => event.type === "ADDED" && event.object.metadata?.name === "web-2");
    expect(watch.events.map((event) => [event.type, event.object.metadata?.name])).toEqual([
      ["ADDED", "web-1"],
      ["DELETED", "web-1"],
      ["ADDED", "web-2"],
    ]);
    watch.stop();
  });

  it("pages lists with limit and continue", async () => {
    const first = await core.listNamespacedPod({ namespace: "default", limit: 2 });
    expect(first.items.map((item) => item.metadata?.name)).toEqual(["db-1", "web-1"]);
    const rest = await core.listNamespacedPod({ namespace: "default", limit: 2, _continue: first.metadata?._continue ?? "" });
    expect(rest.items.map((item) => item.metadata?.name)).toEqual(["web-2"]);
    expect(rest.metadata?._continue).toBeUndefined();
  });
});

describe("pods without a kubelet", () => {
  it("start Pending, refuse spec changes, and go at once when unscheduled", async () => {
    const created = await core.createNamespacedPod({ namespace: "default", body: pod("p") });
    expect(created.status?.phase).toBe("Pending");
    expect(created.spec?.terminationGracePeriodSeconds).toBe(30);
    const forbidden = await failureStatus(
      core.patchNamespacedPod({ name: "p", namespace: "default", body: { spec: { restartPolicy: "Never" } } }, setHeaderOptions("Content-Type", PatchStrategy.StrategicMergePatch)),
    );
    expect(forbidden).toMatchObject({ code: 422, reason: "Invalid" });
    const deleted = await core.deleteNamespacedPod({ name: "p", namespace: "default" });
    expect(deleted.metadata?.name).toBe("p");
    expect(kube.get("pods", "default", "p")).toBeUndefined();
  });
});

describe("server", () => {
  it("serves discovery documents", async () => {
    const version = await kube.kubeConfig.makeApiClient(VersionApi).getCode();
    expect(version.major).toBe("1");
    const groups = await kube.kubeConfig.makeApiClient(ApisApi).getAPIVersions();
    expect(groups.groups.map((group) => group.name)).toEqual(expect.arrayContaining(["coordination.k8s.io", "example.dev"]));
    const resources = await custom.getAPIResources({ group: "example.dev", version: "v1" });
    expect(resources.resources.map((resource) => resource.name)).toEqual(["widgets", "widgets/status"]);
  });

  it("rejects requests without the token", async () => {
    const anonymous = new KubeConfig();
    anonymous.loadFromOptions({
      clusters: [{ name: "c", server: kube.url, skipTLSVerify: true }],
      users: [{ name: "u", token: "wrong" }],
      contexts: [{ name: "x", cluster: "c", user: "u" }],
      currentContext: "x",
    });
    expect(await failureStatus(anonymous.makeApiClient(CoreV1Api).listNamespacedPod({ namespace: "default" }))).toMatchObject({ code: 401 });
  });

  it("injects failures for matching requests and logs every request", async () => {
    kube.failRequests({ verb: "create", resource: "widgets", code: 500, times: 1 });
    expect(await failureStatus(createWidget(widget("flaky")))).toMatchObject({ code: 500, reason: "InternalError" });
    await createWidget(widget("flaky"));
    const creates = kube.requests.filter((request) => request.verb === "create" && request.resource === "widgets.example.dev");
    expect(creates.map((request) => request.code)).toEqual([500, 201]);
  });
});
