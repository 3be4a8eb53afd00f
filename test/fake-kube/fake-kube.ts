import { readFile } from "node:fs/promises";
import { KubeConfig } from "@kubernetes/client-node";
import YAML from "yaml";
import { ApiServer, type RequestRecord } from "./http/api-server.js";
import type { RequestFault } from "./http/request-faults.js";
import type { PodLogSource } from "./http/resource-handler.js";
import { WatchHub } from "./http/watch-hub.js";
import { GarbageCollector } from "./store/garbage-collector.js";
import type { KubeObject } from "./store/kube-object.js";
import { ObjectStore, type DeleteOptions } from "./store/object-store.js";
import { ResourceRegistry } from "./store/resource-registry.js";
import type { ResourceType } from "./store/resource-type.js";
import { parseLabelSelector } from "./store/selectors.js";

export interface FakeKubeOptions {
  /** CustomResourceDefinition objects (apiextensions.k8s.io/v1) to serve; namespaced ones only. */
  crds?: unknown[];
  /** Bearer token the server demands; default "fake-kube-token". */
  token?: string;
  /** The kubeconfig context's namespace; default "default". */
  namespace?: string;
  /** How many past changes a watch can resume from before answering 410; default 1000. */
  historyLimit?: number;
  /** How often open watches with allowWatchBookmarks get a BOOKMARK; default 1000 ms. */
  bookmarkIntervalMs?: number;
}

export interface WaitForOptions {
  timeoutMs?: number;
}

export interface FakeKube {
  /** `http://127.0.0.1:<port>` */
  url: string;
  token: string;
  /** Points at `url` with the token; `insecure-skip-tls-verify` is set because client-node refuses plain http otherwise. */
  kubeConfig: KubeConfig;
  kubeconfigYaml: string;
  /** Direct access for the fake kubelet and advanced tests; writes through it behave like API writes. */
  store: ObjectStore;

  /** `resource` is a storage key (`pods`, `leases.coordination.k8s.io`, `agentsessions.browser-agents.dev`) or a unique plural. */
  get(resource: string, namespace: string, name: string): KubeObject | undefined;
  list(resource: string, namespace?: string, labelSelector?: string): KubeObject[];
  create(resource: string, namespace: string, body: unknown): KubeObject;
  delete(resource: string, namespace: string, name: string, options?: DeleteOptions): KubeObject;
  /** Resolves with the object (undefined once it is gone) as soon as `predicate` holds. */
  waitFor(
    resource: string,
    namespace: string,
    name: string,
    predicate: (object: KubeObject | undefined) => boolean,
    options?: WaitForOptions,
  ): Promise<KubeObject | undefined>;
  /** Every HTTP request served, oldest first (bounded). */
  requests: RequestRecord[];
  resourceVersion(): number;
  openWatchCount(): number;

  /** Ends every open watch stream (cleanly, or by cutting the socket); returns how many. */
  dropWatches(options?: { abrupt?: boolean }): number;
  /** Forgets the change history: resuming a watch from any older resourceVersion gets 410. */
  expireHistory(): void;
  setHistoryLimit(limit: number): void;
  /** Sends a BOOKMARK to every watch that allowed them, now. */
  sendBookmarks(): void;
  /** Answers matching requests with an error Status; returns a function that cancels the fault. */
  failRequests(fault: RequestFault): () => void;
  setPodLogSource(source: PodLogSource | undefined): void;
  close(): Promise<void>;
}

/** Reads a CRD file (YAML, one or more documents) into objects for `crds`. */
export async function readCrdFile(path: string): Promise<unknown[]> {
  const text = await readFile(path, "utf8");
  return YAML.parseAllDocuments(text)
    .map((document) => document.toJS() as unknown)
    .filter((document) => document !== null);
}

function kubeconfigYaml(url: string, token: string, namespace: string): string {
  return YAML.stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "fake-kube", cluster: { server: url, "insecure-skip-tls-verify": true } }],
    users: [{ name: "fake-kube", user: { token } }],
    contexts: [{ name: "fake-kube", context: { cluster: "fake-kube", user: "fake-kube", namespace } }],
    "current-context": "fake-kube",
  });
}

export async function startFakeKube(options: FakeKubeOptions = {}): Promise<FakeKube> {
  const token = options.token ?? "fake-kube-token";
  const registry = new ResourceRegistry(options.crds ?? []);
  const store = new ObjectStore(registry, { historyLimit: options.historyLimit ?? 1000 });
  const collector = new GarbageCollector(store);
  const watches = new WatchHub(store, options.bookmarkIntervalMs ?? 1000);
  const server = new ApiServer(store, watches, token);
  const url = await server.listen();
  const yaml = kubeconfigYaml(url, token, options.namespace ?? "default");
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(yaml);

  const resolve = (resource: string): ResourceType => {
    const exact = registry.types.find((type) => type.storageKey === resource);
    if (exact) return exact;
    const byPlural = registry.types.filter((type) => type.plural === resource);
    const storageKeys = new Set(byPlural.map((type) => type.storageKey));
    const [only] = byPlural;
    if (!only || storageKeys.size > 1) throw new Error(`fake-kube: unknown or ambiguous resource "${resource}"`);
    return only;
  };

  return {
    url,
    token,
    kubeConfig,
    kubeconfigYaml: yaml,
    store,
    get: (resource, namespace, name) => store.find(resolve(resource), namespace, name),
    list: (resource, namespace, labelSelector) => store.list(resolve(resource), namespace, parseLabelSelector(labelSelector)),
    create: (resource, namespace, body) => store.create(resolve(resource), namespace, body),
    delete: (resource, namespace, name, deleteOptions) => store.delete(resolve(resource), namespace, name, deleteOptions).object,
    waitFor(resource, namespace, name, predicate, waitOptions = {}) {
      const type = resolve(resource);
      const timeoutMs = waitOptions.timeoutMs ?? 10_000;
      return new Promise((resolvePromise, reject) => {
        const check = (): boolean => {
          const current = store.find(type, namespace, name);
          if (!predicate(current)) return false;
          cleanup();
          resolvePromise(current);
          return true;
        };
        const unsubscribe = store.subscribe(() => void check());
        const timer = setTimeout(() => {
          cleanup();
          const last = store.find(type, namespace, name);
          reject(new Error(`fake-kube: ${type.storageKey} ${namespace}/${name} did not reach the expected state within ${timeoutMs} ms; last seen: ${JSON.stringify(last)}`));
        }, timeoutMs);
        const cleanup = (): void => {
          unsubscribe();
          clearTimeout(timer);
        };
        check();
      });
    },
    requests: server.requests,
    resourceVersion: () => store.resourceVersion,
    openWatchCount: () => watches.openCount,
    dropWatches: (dropOptions) => watches.dropAll(dropOptions?.abrupt ?? false),
    expireHistory: () => store.expireHistory(),
    setHistoryLimit: (limit) => store.history.setLimit(limit),
    sendBookmarks: () => watches.sendBookmarks(),
    failRequests: (fault) => server.faults.add(fault),
    setPodLogSource(source) {
      server.podLogSource = source;
    },
    async close() {
      collector.stop();
      watches.stop();
      await server.close();
    },
  };
}
