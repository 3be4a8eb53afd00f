import type { KubeObject } from "../../test/fake-kube/index.js";
import { podStatus } from "../../test/fake-kube/kubelet/pod-status.js";
import type { BenchApiServer } from "./operator-fake-server.js";

export interface NullKubelet {
  close(): void;
}

const NODE_NAME = "bench-node";

/**
 * A kubelet whose containers cost nothing: every new pod is bound and reported Running at once,
 * a deleted pod goes at once. The operator sees pods live their normal life without any process.
 */
export function startNullKubelet(kube: BenchApiServer): NullKubelet {
  const podType = kube.store.registry.byStorageKey("pods");
  const pending = new Set<NodeJS.Immediate>();
  const started = new Set<string>();
  // Writes happen outside the store's listener, as a real kubelet's would.
  const later = (work: () => void) => {
    const immediate = setImmediate(() => {
      pending.delete(immediate);
      try {
        work();
      } catch {
        // The pod changed or went meanwhile; the next event brings it back if it matters.
      }
    });
    pending.add(immediate);
  };
  const act = (pod: KubeObject) => {
    const { name, namespace, deletionTimestamp } = pod.metadata;
    if (!name || !namespace) return;
    if (deletionTimestamp) {
      started.delete(pod.metadata.uid ?? "");
      later(() => kube.store.delete(podType, namespace, name, { gracePeriodSeconds: 0 }));
      return;
    }
    const uid = pod.metadata.uid ?? "";
    if (started.has(uid)) return;
    started.add(uid);
    const [container] = (pod.spec as { containers?: { name: string; image: string }[] } | undefined)?.containers ?? [];
    if (!container) return;
    later(() => {
      kube.store.bindPod(namespace, name, NODE_NAME);
      const startedAt = new Date().toISOString().replace(/\.\d+Z$/, "Z");
      kube.store.updateStatus(podType, namespace, name, podStatus({ container, startTime: startedAt, phase: "Running", state: { running: { startedAt } } }));
    });
  };
  const unsubscribe = kube.store.subscribe((event) => {
    if (event.storageKey === "pods" && event.type !== "DELETED") act(event.object);
  });
  return {
    close() {
      unsubscribe();
      for (const immediate of pending) clearImmediate(immediate);
      pending.clear();
    },
  };
}
