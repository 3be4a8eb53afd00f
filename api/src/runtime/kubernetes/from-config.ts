import { KubeConfig } from "@kubernetes/client-node";
import type { RuntimeContext } from "../create-runtime.js";
import type { SessionRuntime } from "../session-runtime.js";
import { createKubernetesRuntime } from "./kubernetes-runtime.js";

/** SESSION_RUNTIME=kubernetes: in a pod the service account, elsewhere KUBECONFIG or ~/.kube/config. */
export async function createKubernetesRuntimeFromConfig(context: RuntimeContext): Promise<SessionRuntime> {
  const { config } = context;
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromDefault();
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
