import { delimiter } from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import type { RuntimeContext } from "../create-runtime.js";
import type { SessionRuntime } from "../session-runtime.js";
import { createKubernetesRuntime } from "./kubernetes-runtime.js";

/** SESSION_RUNTIME=kubernetes: in a pod the service account, elsewhere KUBECONFIG or ~/.kube/config. */
export async function createKubernetesRuntimeFromConfig(context: RuntimeContext): Promise<SessionRuntime> {
  const { config } = context;
  const kubeConfig = loadKubeConfig(context.hostEnv.KUBECONFIG);
  return createKubernetesRuntime({
    kubeConfig,
    namespace: config.KUBE_NAMESPACE,
    get apiUrlForAgents() {
      return context.agentApiUrl;
    },
    agentImage: config.AGENT_IMAGE,
    podResources: {
      requests: { cpu: config.AGENT_CPU_REQUEST, memory: config.AGENT_MEMORY_REQUEST },
      limits: { cpu: config.AGENT_CPU_LIMIT, memory: config.AGENT_MEMORY_LIMIT },
    },
    // A backstop only: the API's own sweeper ends sessions at their time limits first.
    activeDeadlineSeconds: config.SESSION_MAX_DURATION_SECONDS + config.SESSION_IDLE_TIMEOUT_SECONDS + 300,
    events: context.events,
    logger: context.logger,
  });
}

/**
 * KUBECONFIG from the service's own environment (not the process's), with the same meaning as
 * kubectl's: a list of files, merged; without it client-node's default search.
 */
function loadKubeConfig(kubeconfigPaths: string | undefined): KubeConfig {
  const kubeConfig = new KubeConfig();
  const [first, ...rest] = (kubeconfigPaths ?? "").split(delimiter).filter((path) => path !== "");
  if (!first) {
    kubeConfig.loadFromDefault();
    return kubeConfig;
  }
  kubeConfig.loadFromFile(first);
  for (const path of rest) {
    const more = new KubeConfig();
    more.loadFromFile(path);
    kubeConfig.mergeConfig(more);
  }
  return kubeConfig;
}
