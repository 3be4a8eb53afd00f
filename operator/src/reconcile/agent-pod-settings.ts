import type { OperatorConfig } from "../config.js";

/** What the operator's configuration contributes to every agent pod. */
export interface AgentPodSettings {
  command: string[];
  args: string[];
  imagePullPolicy: "Always" | "IfNotPresent" | "Never";
  runtimeClassName?: string;
  runAsUser: number;
  runAsGroup: number;
  homeDir: string;
  chromiumPath: string;
  chromiumFlags: string;
  logLevel: "fatal" | "error" | "warn" | "info" | "debug" | "trace";
  devtoolsPort: number;
  defaultResources: { requests: { cpu: string; memory: string }; limits: { cpu: string; memory: string } };
  shmSize: string;
  tmpSize: string;
  homeSize: string;
  defaultTerminationGracePeriodSeconds: number;
}

export function agentPodSettings(config: OperatorConfig): AgentPodSettings {
  return {
    command: config.AGENT_COMMAND,
    args: config.AGENT_ARGS,
    imagePullPolicy: config.AGENT_IMAGE_PULL_POLICY,
    ...(config.AGENT_RUNTIME_CLASS_NAME ? { runtimeClassName: config.AGENT_RUNTIME_CLASS_NAME } : {}),
    runAsUser: config.AGENT_RUN_AS_USER,
    runAsGroup: config.AGENT_RUN_AS_GROUP,
    homeDir: config.AGENT_HOME_DIR,
    chromiumPath: config.AGENT_CHROMIUM_PATH,
    chromiumFlags: config.AGENT_CHROMIUM_FLAGS,
    logLevel: config.AGENT_LOG_LEVEL,
    devtoolsPort: config.AGENT_DEVTOOLS_PORT,
    defaultResources: {
      requests: { cpu: config.AGENT_CPU_REQUEST, memory: config.AGENT_MEMORY_REQUEST },
      limits: { cpu: config.AGENT_CPU_LIMIT, memory: config.AGENT_MEMORY_LIMIT },
    },
    shmSize: config.AGENT_SHM_SIZE,
    tmpSize: config.AGENT_TMP_SIZE,
    homeSize: config.AGENT_HOME_SIZE,
    defaultTerminationGracePeriodSeconds: config.AGENT_TERMINATION_GRACE_PERIOD_SECONDS,
  };
}
