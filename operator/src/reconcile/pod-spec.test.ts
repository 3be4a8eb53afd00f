import {
  AgentEnvironment,
  FINALIZER,
  LABEL_MANAGED_BY,
  LABEL_SESSION_ID,
  LABEL_TENANT,
  type AgentSession,
} from "@browser-agents/protocol";
import { describe, expect, it } from "vitest";
import { parseOperatorConfig } from "../config.js";
import { agentPodSettings } from "./agent-pod-settings.js";
import { buildAgentPod } from "./pod-spec.js";
import { buildAgentTokenSecret, secretHoldsToken } from "./secret-spec.js";

const session: AgentSession = {
  apiVersion: "browser-agents.dev/v1alpha1",
  kind: "AgentSession",
  metadata: { name: "session-7d1f3c0e-5a4b-4c1d-9e8f-0a1b2c3d4e5f", uid: "uid-1", generation: 3, finalizers: [FINALIZER] },
  spec: {
    sessionId: "7d1f3c0e-5a4b-4c1d-9e8f-0a1b2c3d4e5f",
    tenant: "tenant-a",
    desiredState: "run",
    apiUrl: "http://api.browser-agents.svc:8080",
    image: "registry.example/agent-pod:1.2.3",
    resources: { limits: { memory: "3Gi" } },
    activeDeadlineSeconds: 1800,
  },
};
const settings = agentPodSettings(parseOperatorConfig({ AGENT_TOKEN_SIGNING_KEY: "k".repeat(32) }));

describe("buildAgentPod", () => {
  const pod = buildAgentPod(session, settings);
  const container = pod.spec?.containers[0];

  it("gives the agent exactly the AgentEnvironment contract, with the token from the Secret", () => {
    const names = container?.env?.map((variable) => variable.name).sort();
    expect(names).toEqual(Object.keys(AgentEnvironment.shape).sort());
    const env = Object.fromEntries(container?.env?.map((variable) => [variable.name, variable]) ?? []);
    expect(env.AGENT_API_URL?.value).toBe("http://api.browser-agents.svc:8080");
    expect(env.AGENT_SESSION_ID?.value).toBe(session.spec.sessionId);
    expect(env.AGENT_TOKEN?.value).toBeUndefined();
    expect(env.AGENT_TOKEN?.valueFrom?.secretKeyRef).toEqual({ name: `${session.metadata.name}-agent-token`, key: "AGENT_TOKEN" });
    expect(env.DEVTOOLS_ADDRESS?.value).toBe("0.0.0.0");
    expect(env.DEVTOOLS_PORT?.value).toBe("9222");
    expect(container?.ports).toEqual([{ name: "devtools", containerPort: 9222, protocol: "TCP" }]);
    // Service links would add variables the contract does not know.
    expect(pod.spec?.enableServiceLinks).toBe(false);
  });

  it("runs locked down: non-root, no privilege escalation, no capabilities, read-only root, default seccomp", () => {
    expect(pod.spec?.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 10001, seccompProfile: { type: "RuntimeDefault" } });
    expect(container?.securityContext).toMatchObject({
      runAsNonRoot: true,
      allowPrivilegeEscalation: false,
      privileged: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ["ALL"] },
      seccompProfile: { type: "RuntimeDefault" },
    });
    expect(pod.spec?.automountServiceAccountToken).toBe(false);
    expect(pod.spec?.restartPolicy).toBe("Never");
  });

  it("gives writable scratch space despite the read-only root: /tmp, HOME, and a memory-backed /dev/shm", () => {
    const mounts = Object.fromEntries(container?.volumeMounts?.map((mount) => [mount.mountPath, mount.name]) ?? []);
    expect(Object.keys(mounts).sort()).toEqual(["/dev/shm", "/home/agent", "/tmp"]);
    const volumes = Object.fromEntries(pod.spec?.volumes?.map((volume) => [volume.name, volume.emptyDir]) ?? []);
    expect(volumes[mounts["/dev/shm"] ?? ""]).toEqual({ medium: "Memory", sizeLimit: "1Gi" });
    expect(volumes[mounts["/tmp"] ?? ""]).toBeDefined();
    expect(volumes[mounts["/home/agent"] ?? ""]).toBeDefined();
  });

  it("takes resources and the deadline from the spec, filling gaps from the defaults", () => {
    expect(container?.resources).toEqual({ requests: { cpu: "500m", memory: "1Gi" }, limits: { cpu: "2", memory: "3Gi" } });
    expect(pod.spec?.activeDeadlineSeconds).toBe(1800);
    expect(pod.spec?.terminationGracePeriodSeconds).toBe(30);
    expect(pod.spec?.runtimeClassName).toBeUndefined();
  });

  it("is owned by the AgentSession and labelled with tenant, session and manager", () => {
    expect(pod.metadata?.name).toBe(session.metadata.name);
    expect(pod.metadata?.ownerReferences).toEqual([
      { apiVersion: "browser-agents.dev/v1alpha1", kind: "AgentSession", name: session.metadata.name, uid: "uid-1", controller: true, blockOwnerDeletion: true },
    ]);
    expect(pod.metadata?.labels).toEqual({
      [LABEL_MANAGED_BY]: "browser-agents-operator",
      [LABEL_SESSION_ID]: session.spec.sessionId,
      [LABEL_TENANT]: "tenant-a",
    });
  });

  it("follows the operator's settings: command, pull policy, runtime class, grace period", () => {
    const custom = agentPodSettings(
      parseOperatorConfig({
        AGENT_TOKEN_SIGNING_KEY: "k".repeat(32),
        AGENT_COMMAND: '["node","/srv/agent-pod/dist/main.js"]',
        AGENT_IMAGE_PULL_POLICY: "Always",
        AGENT_RUNTIME_CLASS_NAME: "gvisor",
        AGENT_TERMINATION_GRACE_PERIOD_SECONDS: "45",
      }),
    );
    const customPod = buildAgentPod({ ...session, spec: { ...session.spec, activeDeadlineSeconds: undefined } }, custom);
    expect(customPod.spec?.containers[0]?.command).toEqual(["node", "/srv/agent-pod/dist/main.js"]);
    expect(customPod.spec?.containers[0]?.imagePullPolicy).toBe("Always");
    expect(customPod.spec?.runtimeClassName).toBe("gvisor");
    expect(customPod.spec?.terminationGracePeriodSeconds).toBe(45);
    expect(customPod.spec?.activeDeadlineSeconds).toBeUndefined();
  });
});

describe("buildAgentTokenSecret", () => {
  it("holds the token under AGENT_TOKEN, owned and labelled like the pod", () => {
    const secret = buildAgentTokenSecret(session, "agt_abc");
    expect(secret.metadata?.name).toBe(`${session.metadata.name}-agent-token`);
    expect(secretHoldsToken(secret, "agt_abc")).toBe(true);
    expect(secretHoldsToken(secret, "agt_other")).toBe(false);
    expect(secret.metadata?.ownerReferences?.[0]?.controller).toBe(true);
    expect(secret.metadata?.labels?.[LABEL_TENANT]).toBe("tenant-a");
  });
});
