import { execFileSync } from "node:child_process";
import { lstatSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LABEL_MANAGED_BY, MANAGED_BY_VALUE, type AgentSession } from "@browser-agents/protocol";
import { beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { ConfigSchema, parseConfig } from "../../api/src/config.js";
import { ModelCatalogInput } from "../../api/src/models/catalog-schema.js";
import { buildAgentSession } from "../../api/src/runtime/kubernetes/agent-session-manifest.js";
import { OperatorConfigSchema, parseOperatorConfig } from "../../operator/src/config.js";
import { agentPodSettings } from "../../operator/src/reconcile/agent-pod-settings.js";
import { buildAgentPod } from "../../operator/src/reconcile/pod-spec.js";
import { container, podSpec, resolvedEnvironment, type Container, type EnvVar } from "./container-env.js";
import { crdValidator, type CustomResourceDefinition } from "./crd-schema.js";
import {
  chartDir,
  findObject,
  helmBinary,
  lintChart,
  renderChart,
  renderNotes,
  repoRoot,
  runHelm,
  templateChart,
  type KubernetesObject,
  type RenderOptions,
} from "./helm.js";
import { manifestProblems } from "./kubernetes-schema.js";

const namespace = "browser-agents";

// The first use fetches helm (scripts/fetch-helm.sh), which may take longer than a hook's default limit.
beforeAll(() => void helmBinary(), 180_000);
const apiName = "agents-browser-agents-api";
const operatorName = "agents-browser-agents-operator";
const ciValueFiles = readdirSync(join(chartDir, "ci"))
  .filter((file) => file.endsWith(".yaml"))
  .map((file) => `ci/${file}`);
const valueSets: [string, RenderOptions][] = [
  ["default values", {}],
  ...ciValueFiles.map((file): [string, RenderOptions] => [file, { valuesFiles: [file] }]),
];

function apiEnvironment(objects: KubernetesObject[]): Record<string, string> {
  return resolvedEnvironment(objects, container(findObject(objects, "Deployment", apiName), "api"));
}

function operatorEnvironment(objects: KubernetesObject[]): Record<string, string> {
  return resolvedEnvironment(objects, container(findObject(objects, "Deployment", operatorName), "operator"));
}

function envVar(target: Container, name: string): EnvVar | undefined {
  return target.env?.find((variable) => variable.name === name);
}

function crdOf(objects: KubernetesObject[]): CustomResourceDefinition {
  const crd = objects.find((object): object is CustomResourceDefinition => object.kind === "CustomResourceDefinition");
  if (!crd) throw new Error("no CRD rendered");
  return crd;
}

/** The AgentSession the API would create with this rendering's settings (as from-config.ts maps them). */
function agentSessionFromApiSettings(environment: Record<string, string>): AgentSession {
  const config = parseConfig(environment);
  return buildAgentSession(
    { id: "2b1f3c4d-0000-4000-8000-000000000001", tenantId: "5d8a7e10-0000-4000-8000-000000000002", tenantName: "default" } as Parameters<
      typeof buildAgentSession
    >[0],
    {
      apiUrlForAgents: config.AGENT_API_URL ?? "",
      agentImage: config.AGENT_IMAGE,
      podResources: {
        requests: { cpu: config.AGENT_CPU_REQUEST, memory: config.AGENT_MEMORY_REQUEST },
        limits: { cpu: config.AGENT_CPU_LIMIT, memory: config.AGENT_MEMORY_LIMIT },
      },
      activeDeadlineSeconds: config.SESSION_MAX_DURATION_SECONDS,
    },
  );
}

function agentPodFor(objects: KubernetesObject[]) {
  const session = agentSessionFromApiSettings(apiEnvironment(objects));
  session.metadata.uid = "uid-1";
  session.metadata.namespace = apiEnvironment(objects).KUBE_NAMESPACE;
  return buildAgentPod(session, agentPodSettings(parseOperatorConfig(operatorEnvironment(objects))));
}

describe.each(valueSets)("the chart with %s", (_label, options) => {
  let objects: KubernetesObject[];

  beforeAll(() => {
    objects = renderChart({ ...options, namespace });
  });

  it("passes helm lint --strict", () => {
    const result = lintChart(options);
    expect(result.stderr + result.stdout).toContain("0 chart(s) failed");
    expect(result.status).toBe(0);
  });

  it("renders only manifests the Kubernetes API accepts, in a namespace of the release", () => {
    const problems = Object.fromEntries(
      objects
        .map((object): [string, string[]] => [`${object.kind}/${object.metadata.name}`, manifestProblems(object)])
        .filter(([, found]) => found.length > 0),
    );
    expect(problems).toEqual({});
    const sessionNamespace = apiEnvironment(objects).KUBE_NAMESPACE;
    for (const object of objects.filter((candidate) => candidate.kind !== "CustomResourceDefinition")) {
      expect([namespace, sessionNamespace], `${object.kind}/${object.metadata.name}`).toContain(object.metadata.namespace);
    }
  });

  it("configures the API with variables its configuration parser knows and accepts", () => {
    const environment = apiEnvironment(objects);
    const config = parseConfig(environment);
    expect(config.SESSION_RUNTIME).toBe("kubernetes");
    expect(config.HOST).toBe("0.0.0.0");
    expect(config.DATABASE_URL).toMatch(/^postgres(ql)?:\/\//);
    const catalog = ModelCatalogInput.parse(JSON.parse(config.MODEL_CATALOG ?? "null"));
    expect(catalog.models.map((model) => model.name)).toContain(config.DEFAULT_MODEL);
    const keyVariables = catalog.models.flatMap((model) => (model.apiKeyEnv ? [model.apiKeyEnv] : []));
    for (const variable of keyVariables) expect(environment[variable], `${variable} reaches the API`).toBeDefined();
    // POSTGRES_PASSWORD only feeds $(POSTGRES_PASSWORD) in DATABASE_URL.
    const known = new Set([...Object.keys(ConfigSchema.shape), ...keyVariables, "POSTGRES_PASSWORD"]);
    expect(Object.keys(environment).filter((name) => !known.has(name))).toEqual([]);
  });

  it("configures the operator with variables its configuration parser knows and accepts", () => {
    const environment = operatorEnvironment(objects);
    const config = parseOperatorConfig(environment);
    expect(config.LEADER_ELECTION).toBe(true);
    expect(config.WATCH_NAMESPACE).toBe(apiEnvironment(objects).KUBE_NAMESPACE);
    expect(Object.keys(environment).filter((name) => !(name in OperatorConfigSchema.shape))).toEqual([]);
  });

  it("gives the API and the operator the same agent-token signing key", () => {
    const fromApi = envVar(container(findObject(objects, "Deployment", apiName), "api"), "AGENT_TOKEN_SIGNING_KEY");
    const fromOperator = envVar(container(findObject(objects, "Deployment", operatorName), "operator"), "AGENT_TOKEN_SIGNING_KEY");
    expect(fromApi?.valueFrom?.secretKeyRef).toBeDefined();
    expect(fromOperator?.valueFrom?.secretKeyRef).toEqual(fromApi?.valueFrom?.secretKeyRef);
  });

  it("points agents at the API Service, which selects the API pods", () => {
    const deployment = findObject(objects, "Deployment", apiName);
    const service = findObject(objects, "Service", apiName);
    const serviceSpec = service.spec as { selector: Record<string, string>; ports: { port: number; targetPort: string }[] };
    const url = new URL(apiEnvironment(objects).AGENT_API_URL ?? "");
    expect(url.hostname).toBe(`${apiName}.${namespace}.svc`);
    expect(Number(url.port)).toBe(serviceSpec.ports[0]?.port);
    const podLabels = (deployment.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels;
    expect(podLabels).toMatchObject(serviceSpec.selector);
    expect(container(deployment, "api").ports?.map((port) => port.name)).toContain(serviceSpec.ports[0]?.targetPort);
  });

  it("makes the API create AgentSessions that the CRD accepts", () => {
    const validate = crdValidator(crdOf(objects), "v1alpha1");
    expect(validate(agentSessionFromApiSettings(apiEnvironment(objects)))).toEqual([]);
  });

  it("makes the operator create agent pods that the Kubernetes API accepts and the NetworkPolicy covers", () => {
    const pod = agentPodFor(objects);
    expect(manifestProblems(pod as KubernetesObject)).toEqual([]);
    const policy = objects.find((object) => object.kind === "NetworkPolicy");
    const selector = (policy?.spec as { podSelector: { matchLabels: Record<string, string> } }).podSelector.matchLabels;
    expect(pod.metadata?.labels).toMatchObject(selector);
    expect(policy?.metadata.namespace).toBe(apiEnvironment(objects).KUBE_NAMESPACE);
  });
});

describe("the AgentSession CRD", () => {
  let crd: CustomResourceDefinition;
  const valid = {
    apiVersion: "browser-agents.dev/v1alpha1",
    kind: "AgentSession",
    metadata: { name: "session-2b1f3c4d-0000-4000-8000-000000000001" },
    spec: {
      sessionId: "2b1f3c4d-0000-4000-8000-000000000001",
      tenant: "5d8a7e10-0000-4000-8000-000000000002",
      desiredState: "run",
      apiUrl: "http://agents-browser-agents-api.browser-agents.svc:8080",
      image: "browser-agents/agent-pod:0.1.0",
      resources: { requests: { cpu: "500m", memory: "1Gi" }, limits: { cpu: "2", memory: "2Gi" } },
      activeDeadlineSeconds: 3600,
    },
    status: { phase: "Running", podName: "session-2b1f3c4d-0000-4000-8000-000000000001", startTime: "2026-01-01T00:00:00Z" },
  };

  beforeAll(() => {
    crd = crdOf(renderChart());
  });

  it("comes from crds/agentsession.yaml, the single source, through a symlink", () => {
    const inChart = join(chartDir, "crds", "agentsession.yaml");
    expect(lstatSync(inChart).isSymbolicLink()).toBe(true);
    expect(realpathSync(inChart)).toBe(realpathSync(join(repoRoot, "crds", "agentsession.yaml")));
    expect(crd).toEqual(parseYaml(readFileSync(join(repoRoot, "crds", "agentsession.yaml"), "utf8")));
    expect(readdirSync(join(chartDir, "templates"), { recursive: true }).join(" ")).not.toMatch(/crd/i);
  });

  it("is packaged into the chart archive as a regular file", () => {
    const workDir = mkdtempSync(join(tmpdir(), "chart-package-"));
    try {
      const packaged = runHelm(["package", chartDir, "--destination", workDir]);
      expect(packaged.status, packaged.stderr).toBe(0);
      const archive = readdirSync(workDir).find((file) => file.endsWith(".tgz")) ?? "";
      execFileSync("tar", ["-xzf", join(workDir, archive), "-C", workDir]);
      const unpacked = join(workDir, "browser-agents", "crds", "agentsession.yaml");
      expect(lstatSync(unpacked).isFile()).toBe(true);
      expect(readFileSync(unpacked, "utf8")).toBe(readFileSync(join(repoRoot, "crds", "agentsession.yaml"), "utf8"));
    } finally {
      rmSync(workDir, { recursive: true, force: true });
    }
  });

  it("accepts a well-formed AgentSession", () => {
    expect(crdValidator(crd, "v1alpha1")(valid)).toEqual([]);
  });

  it.each([
    ["an unknown desiredState", { spec: { ...valid.spec, desiredState: "pause" } }],
    ["a missing image", { spec: { ...valid.spec, image: undefined } }],
    ["a misspelt spec field", { spec: { ...valid.spec, activeDeadlineSecond: 60 } }],
    ["a session id that is not a UUID", { spec: { ...valid.spec, sessionId: "not-a-uuid" } }],
    ["a memory quantity in the wrong unit", { spec: { ...valid.spec, resources: { limits: { memory: "2GB" } } } }],
    ["an unknown phase", { status: { phase: "Sleeping" } }],
  ])("rejects %s", (_label, change) => {
    const sample = JSON.parse(JSON.stringify({ ...valid, ...change })) as unknown;
    expect(crdValidator(crd, "v1alpha1")(sample)).not.toEqual([]);
  });
});

describe("values that must fail the install", () => {
  it.each<[string, RenderOptions, RegExp]>([
    ["a misspelt top-level key", { set: ["ingres.enabled=true"] }, /additional properties 'ingres' not allowed/],
    ["a misspelt nested key", { set: ["api.replicaz=3"] }, /at '\/api': additional properties 'replicaz' not allowed/],
    ["a misspelt runtime class key", { set: ["agentPods.runtimeClassname=gvisor"] }, /additional properties 'runtimeClassname' not allowed/],
    [
      "a misspelt model catalog field",
      { setJson: ['models.catalog=[{"name":"gpt-4.1-mini","baseUrl":"https://api.openai.com/v1","apiKeyEnvv":"OPENAI_API_KEY"}]'] },
      /additional properties 'apiKeyEnvv' not allowed/,
    ],
    ["a replica count that is not a number", { set: ["api.replicas=two"] }, /\/api\/replicas/],
    ["a memory quantity in the wrong unit", { set: ["agentPods.resources.limits.memory=2GB"] }, /\/agentPods\/resources\/limits\/memory/],
    ["an unknown reasoning effort", { setJson: ['models.catalog=[{"name":"m","baseUrl":"https://x.example/v1","efforts":["turbo"]}]'] }, /efforts/],
    ["a default model outside the catalog", { set: ["models.default=gpt-9"] }, /models.default "gpt-9" is not a name in models.catalog/],
    [
      "a model whose key variable no credential provides",
      { setJson: ['models.providerCredentials=[]'] },
      /reads its key from OPENAI_API_KEY, but models.providerCredentials has no entry/,
    ],
    ["no database at all", { set: ["postgresql.enabled=false"] }, /postgresql.enabled=false needs database.external.existingSecret/],
    [
      "two databases at once",
      { set: ["database.external.existingSecret=db"] },
      /database.external.existingSecret is set while postgresql.enabled=true/,
    ],
  ])("rejects %s", (_label, options, message) => {
    const result = templateChart(options);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(message);
  });
});

describe("the database switch", () => {
  it("runs the bundled Postgres on a persistent volume whose password survives uninstall", () => {
    const objects = renderChart({ valuesFiles: ["ci/bundled-db-values.yaml"], namespace });
    const statefulSet = findObject(objects, "StatefulSet", "agents-browser-agents-postgresql");
    const claims = (statefulSet.spec as { volumeClaimTemplates: { spec: { storageClassName: string; resources: { requests: { storage: string } } } }[] })
      .volumeClaimTemplates;
    expect(claims[0]?.spec).toMatchObject({ storageClassName: "standard", resources: { requests: { storage: "20Gi" } } });
    const secret = findObject(objects, "Secret", "agents-browser-agents-postgresql");
    expect(secret.metadata.annotations?.["helm.sh/resource-policy"]).toBe("keep");
    expect(new URL(apiEnvironment(objects).DATABASE_URL ?? "").host).toBe(`agents-browser-agents-postgresql.${namespace}.svc:5432`);
  });

  it("reads the external database URL from the named Secret and runs no Postgres", () => {
    const objects = renderChart({ valuesFiles: ["ci/external-db-values.yaml"], namespace });
    expect(objects.filter((object) => object.kind === "StatefulSet")).toEqual([]);
    const api = findObject(objects, "Deployment", apiName);
    for (const name of ["api", "migrate"]) {
      expect(envVar(container(api, name), "DATABASE_URL")?.valueFrom?.secretKeyRef).toEqual({ name: "browser-agents-database", key: "url" });
    }
  });
});

describe("agent pod isolation", () => {
  it("lets agent pods reach only DNS, the API and public addresses, and only the API reach them", () => {
    const objects = renderChart({ namespace });
    const policy = findObject(objects, "NetworkPolicy", "agents-browser-agents-agent-pods");
    const spec = policy.spec as {
      podSelector: { matchLabels: Record<string, string> };
      policyTypes: string[];
      ingress: { from: { podSelector: { matchLabels: Record<string, string> } }[]; ports: { port: number }[] }[];
      egress: { to: Record<string, unknown>[]; ports?: { protocol: string; port: number }[] }[];
    };
    const apiPodLabels = (findObject(objects, "Deployment", apiName).spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels;
    const devtoolsPort = Number(operatorEnvironment(objects).AGENT_DEVTOOLS_PORT);

    expect(spec.podSelector.matchLabels).toEqual({ [LABEL_MANAGED_BY]: MANAGED_BY_VALUE });
    expect(spec.policyTypes).toEqual(["Ingress", "Egress"]);
    expect(spec.ingress).toEqual([{ from: [{ podSelector: { matchLabels: apiPodLabels } }], ports: [{ protocol: "TCP", port: devtoolsPort }] }]);
    expect(spec.egress).toEqual([
      {
        to: [
          {
            namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "kube-system" } },
            podSelector: { matchLabels: { "k8s-app": "kube-dns" } },
          },
        ],
        ports: [
          { protocol: "UDP", port: 53 },
          { protocol: "TCP", port: 53 },
        ],
      },
      { to: [{ podSelector: { matchLabels: apiPodLabels } }], ports: [{ protocol: "TCP", port: 8080 }] },
      { to: [{ ipBlock: { cidr: "0.0.0.0/0", except: ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.169.254/32"] } }] },
    ]);
  });

  it("selects the API pods across namespaces when agent pods have their own", () => {
    const objects = renderChart({ valuesFiles: ["ci/external-db-values.yaml"], namespace });
    const policy = findObject(objects, "NetworkPolicy", "agents-browser-agents-agent-pods");
    expect(policy.metadata.namespace).toBe("browser-agents-sessions");
    const peers = JSON.stringify(policy.spec);
    expect(peers.match(/"kubernetes.io\/metadata.name":"browser-agents"/g)).toHaveLength(2);
  });

  it("runs agent pods under the configured RuntimeClass, and under the cluster default otherwise", () => {
    expect(agentPodFor(renderChart({ valuesFiles: ["ci/gvisor-values.yaml"], namespace })).spec?.runtimeClassName).toBe("gvisor");
    expect(agentPodFor(renderChart({ namespace })).spec?.runtimeClassName).toBeUndefined();
  });

  it("gives agent pods the session resources and time limit from values", () => {
    const pod = agentPodFor(renderChart({ valuesFiles: ["ci/gvisor-values.yaml"], namespace }));
    expect(pod.spec?.containers[0]?.resources).toEqual({ requests: { cpu: "1", memory: "1536Mi" }, limits: { cpu: "2", memory: "3Gi" } });
    expect(pod.spec?.volumes?.find((volume) => volume.name === "dshm")?.emptyDir?.sizeLimit).toBe("2Gi");
  });
});

describe("availability and hardening", () => {
  let objects: KubernetesObject[];

  beforeAll(() => {
    objects = renderChart({ namespace });
  });

  it("runs two operator replicas that elect a leader by their pod names", () => {
    const operator = findObject(objects, "Deployment", operatorName);
    expect((operator.spec as { replicas: number }).replicas).toBe(2);
    const podName = envVar(container(operator, "operator"), "POD_NAME");
    expect(podName?.valueFrom?.fieldRef?.fieldPath).toBe("metadata.name");
    expect(operatorEnvironment(objects)).toMatchObject({ LEADER_ELECTION: "true", LEADER_ELECTION_NAMESPACE: namespace });
  });

  it("keeps one API and one operator pod through voluntary disruptions", () => {
    for (const name of [apiName, operatorName]) {
      const budget = findObject(objects, "PodDisruptionBudget", name);
      const selector = (budget.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels;
      const deployment = findObject(objects, "Deployment", name);
      expect((deployment.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels).toEqual(selector);
      expect(budget.spec).toMatchObject({ maxUnavailable: 1, unhealthyPodEvictionPolicy: "AlwaysAllow" });
    }
  });

  it("migrates the database before a new API version serves traffic", () => {
    const api = findObject(objects, "Deployment", apiName);
    expect(podSpec(api).initContainers?.map((init) => init.command)).toEqual([["node", "api/dist/cli/migrate.js"]]);
    expect((api.spec as { strategy: unknown }).strategy).toEqual({ type: "RollingUpdate", rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } });
    const probe = (container(api, "api") as Container & { readinessProbe: { httpGet: { path: string } } }).readinessProbe;
    expect(probe.httpGet.path).toBe("/readyz");
  });

  it("runs every container non-root, read-only, without capabilities", () => {
    const workloads = objects.filter((object) => object.kind === "Deployment" || object.kind === "StatefulSet");
    expect(workloads.length).toBe(3);
    for (const workload of workloads) {
      const spec = podSpec(workload);
      expect(spec.securityContext?.runAsNonRoot, workload.metadata.name).toBe(true);
      for (const each of [...(spec.initContainers ?? []), ...spec.containers]) {
        expect((each as Container & { securityContext: unknown }).securityContext, `${workload.metadata.name}/${each.name}`).toMatchObject({
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          capabilities: { drop: ["ALL"] },
        });
      }
    }
  });

  it("routes the ingress host to the API Service with TLS", () => {
    const withIngress = renderChart({ valuesFiles: ["ci/ingress-values.yaml"], namespace });
    const ingress = findObject(withIngress, "Ingress", apiName);
    expect(ingress.spec).toMatchObject({
      ingressClassName: "nginx",
      tls: [{ secretName: "agents-example-com-tls", hosts: ["agents.example.com"] }],
      rules: [{ host: "agents.example.com", http: { paths: [{ path: "/", backend: { service: { name: apiName, port: { name: "http" } } } }] } }],
    });
    expect(objects.filter((object) => object.kind === "Ingress")).toEqual([]);
  });
});

describe("NOTES.txt", () => {
  it("tells how to get the first API key, reach the API and start a session", () => {
    const notes = renderNotes({ namespace });
    expect(notes).toContain(`kubectl -n ${namespace} exec deploy/${apiName} -c api -- node api/dist/cli/keys.js create --tenant default`);
    expect(notes).toContain(`kubectl -n ${namespace} port-forward service/${apiName} 8080:8080`);
    expect(notes).toMatch(/curl -sS -X POST "\$BROWSER_AGENTS_URL\/v3\/sessions" \\\n\s+-H "Authorization: Bearer \$BROWSER_AGENTS_KEY"/);
    expect(notes).toContain("kubectl -n browser-agents create secret generic openai-credentials --from-literal=api-key=");
  });

  it("gives the ingress address when there is one", () => {
    expect(renderNotes({ valuesFiles: ["ci/ingress-values.yaml"], namespace })).toContain("export BROWSER_AGENTS_URL=https://agents.example.com");
  });
});
