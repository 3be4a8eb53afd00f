import {
  ANNOTATION_LAUNCHED_GENERATION,
  agentTokenSecretName,
  type AgentEnvironment,
  type AgentSession,
} from "@browser-agents/protocol";
import type { V1EnvVar, V1Pod, V1ResourceRequirements } from "@kubernetes/client-node";
import type { AgentPodSettings } from "./agent-pod-settings.js";
import { childLabels, controllerReference } from "./owned-objects.js";
import { AGENT_TOKEN_SECRET_KEY } from "./secret-spec.js";

export const AGENT_CONTAINER_NAME = "agent";

/** One pod per AgentSession at a time, named like it: a second create is a 409, never a duplicate. */
export function agentPodName(session: AgentSession): string {
  return session.metadata.name;
}

/**
 * The agent pod of an AgentSession. Pure: the same session and settings give the same pod.
 * Its environment is exactly the AgentEnvironment contract, nothing more (no service links).
 */
export function buildAgentPod(session: AgentSession, settings: AgentPodSettings): V1Pod {
  const { spec } = session;
  const environment: { [Name in keyof AgentEnvironment]: Omit<V1EnvVar, "name"> } = {
    AGENT_API_URL: { value: spec.apiUrl },
    AGENT_SESSION_ID: { value: spec.sessionId },
    AGENT_TOKEN: {
      valueFrom: { secretKeyRef: { name: agentTokenSecretName(session.metadata.name), key: AGENT_TOKEN_SECRET_KEY } },
    },
    CHROMIUM_PATH: { value: settings.chromiumPath },
    CHROMIUM_FLAGS: { value: settings.chromiumFlags },
    DEVTOOLS_PORT: { value: String(settings.devtoolsPort) },
    // The API reaches DevTools at the pod IP for the live view.
    DEVTOOLS_ADDRESS: { value: "0.0.0.0" },
    // A pod has no parent process holding its stdin; the kubelet ends it instead.
    AGENT_EXIT_WITH_STDIN: { value: "false" },
    LOG_LEVEL: { value: settings.logLevel },
  };
  const env: V1EnvVar[] = Object.entries(environment).map(([name, source]) => ({ name, ...source }));

  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: agentPodName(session),
      labels: childLabels(session),
      annotations: { [ANNOTATION_LAUNCHED_GENERATION]: String(session.metadata.generation ?? 0) },
      ownerReferences: [controllerReference(session)],
    },
    spec: {
      restartPolicy: "Never",
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      ...(settings.runtimeClassName ? { runtimeClassName: settings.runtimeClassName } : {}),
      ...(spec.activeDeadlineSeconds ? { activeDeadlineSeconds: spec.activeDeadlineSeconds } : {}),
      terminationGracePeriodSeconds: spec.terminationGracePeriodSeconds ?? settings.defaultTerminationGracePeriodSeconds,
      securityContext: {
        runAsNonRoot: true,
        runAsUser: settings.runAsUser,
        runAsGroup: settings.runAsGroup,
        fsGroup: settings.runAsGroup,
        seccompProfile: { type: "RuntimeDefault" },
      },
      containers: [
        {
          name: AGENT_CONTAINER_NAME,
          image: spec.image,
          imagePullPolicy: settings.imagePullPolicy,
          command: settings.command,
          args: settings.args,
          env,
          ports: [{ name: "devtools", containerPort: settings.devtoolsPort, protocol: "TCP" }],
          resources: resourcesFor(session, settings),
          securityContext: {
            runAsNonRoot: true,
            runAsUser: settings.runAsUser,
            runAsGroup: settings.runAsGroup,
            allowPrivilegeEscalation: false,
            privileged: false,
            readOnlyRootFilesystem: true,
            capabilities: { drop: ["ALL"] },
            seccompProfile: { type: "RuntimeDefault" },
          },
          volumeMounts: [
            { name: "tmp", mountPath: "/tmp" },
            { name: "home", mountPath: settings.homeDir },
            { name: "dshm", mountPath: "/dev/shm" },
          ],
        },
      ],
      volumes: [
        { name: "tmp", emptyDir: { sizeLimit: settings.tmpSize } },
        // Chromium's profile and caches live under HOME.
        { name: "home", emptyDir: { sizeLimit: settings.homeSize } },
        // The runtime's default 64 MiB /dev/shm crashes Chromium tabs.
        { name: "dshm", emptyDir: { medium: "Memory", sizeLimit: settings.shmSize } },
      ],
    },
  };
}

function resourcesFor(session: AgentSession, settings: AgentPodSettings): V1ResourceRequirements {
  const wanted = session.spec.resources;
  return {
    requests: { ...settings.defaultResources.requests, ...definedOnly(wanted?.requests) },
    limits: { ...settings.defaultResources.limits, ...definedOnly(wanted?.limits) },
  };
}

function definedOnly(amounts: { cpu?: string; memory?: string } | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(amounts ?? {}).filter((entry): entry is [string, string] => entry[1] !== undefined));
}
