import { KubeConfig } from "@kubernetes/client-node";
import YAML from "yaml";
import { ApiServer } from "../../test/fake-kube/http/api-server.js";
import { WatchHub } from "../../test/fake-kube/http/watch-hub.js";
import { ObjectStore } from "../../test/fake-kube/store/object-store.js";
import { ResourceRegistry } from "../../test/fake-kube/store/resource-registry.js";

/** What the operator bench needs of a Kubernetes API server. */
export interface BenchApiServer {
  store: ObjectStore;
  kubeConfig: KubeConfig;
  kubeconfigYaml: string;
  close(): Promise<void>;
}

const TOKEN = "bench-operator-token";

/**
 * test/fake-kube's API server (store, watches, HTTP) without its garbage collector. That collector
 * clones every stored object after every write, which makes thousands of objects cost seconds per
 * write; nothing in this bench deletes an owner, so it has nothing to collect.
 */
export async function startBenchApiServer(options: { crds: unknown[]; namespace: string; historyLimit: number }): Promise<BenchApiServer> {
  const store = new ObjectStore(new ResourceRegistry(options.crds), { historyLimit: options.historyLimit });
  const watches = new WatchHub(store, 1000);
  const server = new ApiServer(store, watches, TOKEN);
  const url = await server.listen();
  const kubeconfigYaml = YAML.stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "bench", cluster: { server: url, "insecure-skip-tls-verify": true } }],
    users: [{ name: "bench", user: { token: TOKEN } }],
    contexts: [{ name: "bench", context: { cluster: "bench", user: "bench", namespace: options.namespace } }],
    "current-context": "bench",
  });
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(kubeconfigYaml);
  return {
    store,
    kubeConfig,
    kubeconfigYaml,
    async close() {
      watches.stop();
      await server.close();
    },
  };
}
