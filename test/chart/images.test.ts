import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { parseOperatorConfig } from "../../operator/src/config.js";
import { agentPodSettings } from "../../operator/src/reconcile/agent-pod-settings.js";
import { buildAgentPod } from "../../operator/src/reconcile/pod-spec.js";
import { AGENT_SESSION_API_VERSION, AGENT_SESSION_KIND, type AgentSession } from "@browser-agents/protocol";
import { container, podSpec, resolvedEnvironment } from "./container-env.js";
import { copiesFrom, environment, execForm, finalStage, lastArgument, readDockerfile, type Dockerfile } from "./dockerfile.js";
import { chartDir, findObject, helmBinary, renderChart, repoRoot, type KubernetesObject } from "./helm.js";

const imageNames = ["api", "operator", "agent-pod"] as const;

// The first use fetches helm (scripts/fetch-helm.sh), which may take longer than a hook's default limit.
beforeAll(() => void helmBinary(), 180_000);
type ImageName = (typeof imageNames)[number];
const dockerfiles = Object.fromEntries(
  imageNames.map((name) => [name, readDockerfile(join(repoRoot, "images", `${name}.Dockerfile`))]),
) as Record<ImageName, Dockerfile>;

function workdir(dockerfile: Dockerfile): string {
  const directory = lastArgument(finalStage(dockerfile), "WORKDIR");
  if (!directory) throw new Error("the runtime stage sets no WORKDIR");
  return directory;
}

function imageUser(dockerfile: Dockerfile): { uid: number; gid: number } {
  const user = lastArgument(finalStage(dockerfile), "USER") ?? "";
  const match = /^(\d+):(\d+)$/.exec(user);
  if (!match) throw new Error(`USER must be numeric uid:gid, is "${user}"`);
  return { uid: Number(match[1]), gid: Number(match[2]) };
}

/**
 * The TypeScript source a `node <script>` command runs, found through the workspace's tsconfig
 * (rootDir -> outDir), and the image's COPY that puts the compiled file there.
 */
function sourceOfScript(dockerfile: Dockerfile, script: string): { source: string; copiedFrom: string | undefined } {
  const [workspace = ""] = script.split("/");
  const tsconfig = JSON.parse(readFileSync(join(repoRoot, workspace, "tsconfig.json"), "utf8")) as {
    compilerOptions: { rootDir: string; outDir: string };
  };
  const outDir = `${workspace}/${tsconfig.compilerOptions.outDir.replace(/^\.\//, "")}`;
  expect(script.startsWith(`${outDir}/`), `${script} lies outside ${outDir}`).toBe(true);
  const source = `${workspace}/${tsconfig.compilerOptions.rootDir}/${script.slice(outDir.length + 1).replace(/\.js$/, ".ts")}`;
  return { source, copiedFrom: copiesFrom(finalStage(dockerfile), "build").get(outDir) };
}

function expectRunnableScript(dockerfile: Dockerfile, command: string[]): void {
  const nodeIndex = command.indexOf("node");
  expect(nodeIndex, `"${command.join(" ")}" does not run node`).toBeGreaterThanOrEqual(0);
  const script = command[nodeIndex + 1] ?? "";
  const { source, copiedFrom } = sourceOfScript(dockerfile, script);
  expect(existsSync(join(repoRoot, source)), `${script} compiles from ${source}, which does not exist`).toBe(true);
  expect(copiedFrom, `the image does not copy the directory holding ${script}`).toBeDefined();
  const workspace = script.split("/")[0] ?? "";
  // Without the workspace's package.json ("type": "module") node would run dist as CommonJS.
  expect(copiesFrom(finalStage(dockerfile), "build").get(workspace)).toBe(`/src/${workspace}/package.json`);
}

const sampleSession: AgentSession = {
  apiVersion: AGENT_SESSION_API_VERSION,
  kind: AGENT_SESSION_KIND,
  metadata: { name: "session-2b1f3c4d-0000-4000-8000-000000000001", namespace: "browser-agents", uid: "uid-1", generation: 1 },
  spec: {
    sessionId: "2b1f3c4d-0000-4000-8000-000000000001",
    tenant: "default",
    desiredState: "run",
    apiUrl: "http://agents-browser-agents-api.browser-agents.svc:8080",
    image: "browser-agents/agent-pod:0.1.0",
  },
};

describe("container images", () => {
  let objects: KubernetesObject[];
  let values: { agentPods: { runAsUser: number; runAsGroup: number; homeDir: string; command: string[] } };

  beforeAll(() => {
    objects = renderChart();
    values = parseYaml(readFileSync(join(chartDir, "values.yaml"), "utf8")) as typeof values;
  });

  it("build every image on the same pinned Node 20 base", () => {
    const bases = imageNames.map((name) => dockerfiles[name].globalArgs.get("NODE_IMAGE"));
    expect(new Set(bases).size).toBe(1);
    expect(bases[0]).toMatch(/^docker\.io\/library\/node:20\.\d+\.\d+-bookworm-slim(@sha256:[a-f0-9]{64})?$/);
    for (const name of imageNames) {
      expect(dockerfiles[name].stages.map((stage) => stage.from)).toEqual(["${NODE_IMAGE}", "${NODE_IMAGE}", "${NODE_IMAGE}"]);
    }
  });

  it("install only production dependencies of the image's own workspace", () => {
    for (const name of imageNames) {
      const install = dockerfiles[name].stages[1]?.instructions.find((instruction) => instruction.argument.startsWith("npm ci"));
      expect(install?.argument).toContain("--omit=dev");
      expect(install?.argument).toContain(`--workspace ${name}`);
      expect(copiesFrom(finalStage(dockerfiles[name]), "production-dependencies").get("node_modules")).toBe("/app/node_modules");
    }
  });

  it("start a script that the workspace's source compiles to and the image contains", () => {
    for (const name of imageNames) {
      const stage = finalStage(dockerfiles[name]);
      expectRunnableScript(dockerfiles[name], [...execForm(stage, "ENTRYPOINT"), ...execForm(stage, "CMD")]);
    }
  });

  it("name in the chart and its notes only scripts that exist in the images", () => {
    const api = findObject(objects, "Deployment", "agents-browser-agents-api");
    const operator = findObject(objects, "Deployment", "agents-browser-agents-operator");
    expectRunnableScript(dockerfiles.api, container(api, "api").command ?? []);
    expectRunnableScript(dockerfiles.api, container(api, "migrate").command ?? []);
    expectRunnableScript(dockerfiles.operator, container(operator, "operator").command ?? []);
    const agentCommand = JSON.parse(resolvedEnvironment(objects, container(operator, "operator")).AGENT_COMMAND ?? "[]") as string[];
    expectRunnableScript(dockerfiles["agent-pod"], agentCommand);
    const notes = readFileSync(join(chartDir, "templates/NOTES.txt"), "utf8");
    const keysCommand = /node (api\/dist\/cli\/keys\.js)/.exec(notes);
    expect(keysCommand, "NOTES.txt tells how to create an API key").not.toBeNull();
    expectRunnableScript(dockerfiles.api, ["node", keysCommand?.[1] ?? ""]);
  });

  it("run as the same numeric non-root user the chart and the operator's pod spec use", () => {
    for (const name of imageNames) expect(imageUser(dockerfiles[name]).uid).toBeGreaterThanOrEqual(10000);
    for (const [name, deployment] of [
      ["api", "agents-browser-agents-api"],
      ["operator", "agents-browser-agents-operator"],
    ] as const) {
      const security = podSpec(findObject(objects, "Deployment", deployment)).securityContext;
      expect({ uid: security?.runAsUser, gid: security?.runAsGroup }).toEqual(imageUser(dockerfiles[name]));
    }
    expect({ uid: values.agentPods.runAsUser, gid: values.agentPods.runAsGroup }).toEqual(imageUser(dockerfiles["agent-pod"]));
  });

  it("give agent pods a HOME and TMPDIR that the operator mounts writable and the binaries the operator runs", () => {
    const operator = findObject(objects, "Deployment", "agents-browser-agents-operator");
    const settings = agentPodSettings(parseOperatorConfig(resolvedEnvironment(objects, container(operator, "operator"))));
    const pod = buildAgentPod(sampleSession, settings);
    const agent = pod.spec?.containers[0];
    const imageEnvironment = environment(finalStage(dockerfiles["agent-pod"]));
    const writable = (agent?.volumeMounts ?? []).map((mount) => mount.mountPath);

    expect(agent?.securityContext?.readOnlyRootFilesystem).toBe(true);
    expect(pod.spec?.securityContext?.runAsUser).toBe(imageUser(dockerfiles["agent-pod"]).uid);
    expect(writable).toContain(imageEnvironment.get("HOME"));
    expect(writable).toContain(imageEnvironment.get("TMPDIR"));
    for (const variable of ["XDG_CONFIG_HOME", "XDG_CACHE_HOME"]) {
      expect(imageEnvironment.get(variable)?.startsWith(`${imageEnvironment.get("HOME")}/`)).toBe(true);
    }
    const podEnvironment = Object.fromEntries((agent?.env ?? []).map((variable) => [variable.name, variable.value]));
    expect(podEnvironment.CHROMIUM_PATH).toBe(imageEnvironment.get("CHROMIUM_PATH"));
    expect(agent?.command?.[0]).toBe(execForm(finalStage(dockerfiles["agent-pod"]), "ENTRYPOINT")[0]);
    expect(agent?.ports?.map((port) => port.containerPort)).toEqual([Number(imageEnvironment.get("DEVTOOLS_PORT"))]);
  });

  it("install Debian's Chromium, the fonts and tini in the agent image", () => {
    const install = finalStage(dockerfiles["agent-pod"]).instructions.find((instruction) => instruction.argument.includes("apt-get install"));
    for (const packageName of ["chromium", "fonts-liberation", "fonts-noto-color-emoji", "fonts-noto-cjk", "tini"]) {
      expect(install?.argument.split(/\s+/)).toContain(packageName);
    }
  });

  it("ship the API's migrations where MIGRATIONS_DIR points", () => {
    const stage = finalStage(dockerfiles.api);
    const migrationsDir = environment(stage).get("MIGRATIONS_DIR") ?? "";
    const relative = migrationsDir.slice(workdir(dockerfiles.api).length + 1);
    expect(copiesFrom(stage, "build").get(relative)).toBe("/src/prisma/migrations");
    expect(existsSync(join(repoRoot, "prisma/migrations"))).toBe(true);
  });

  it("keep host build output and node_modules out of every build context", () => {
    const ignoreFiles = imageNames.map((name) => readFileSync(join(repoRoot, "images", `${name}.Dockerfile.dockerignore`), "utf8"));
    expect(new Set(ignoreFiles).size).toBe(1);
    const patterns = (ignoreFiles[0] ?? "").split("\n");
    for (const pattern of ["**/node_modules", "**/dist", ".git"]) expect(patterns).toContain(pattern);
  });
});

describe("scripts/build-images.sh", () => {
  let binDir: string;

  beforeAll(() => {
    binDir = mkdtempSync(join(tmpdir(), "build-images-"));
    for (const tool of ["sed", "dirname"]) symlinkSync(`/usr/bin/${tool}`, join(binDir, tool));
  });
  afterAll(() => rmSync(binDir, { recursive: true, force: true }));

  function run(args: string[]) {
    return spawnSync("/bin/bash", [join(repoRoot, "scripts/build-images.sh"), ...args], {
      encoding: "utf8",
      env: { PATH: binDir, HOME: binDir },
    });
  }

  it("explains that a container builder is missing", () => {
    const result = run([]);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("no working container builder found");
    expect(result.stderr).toMatch(/docker.*podman.*buildah/);
  });

  it("builds each image from its Dockerfile, tagged with the chart's appVersion", () => {
    const log = join(binDir, "docker.log");
    writeFileSync(join(binDir, "docker"), `#!/bin/bash\necho "$*" >> ${log}\n`);
    chmodSync(join(binDir, "docker"), 0o755);
    const result = run(["--registry", "registry.example/team", "api", "agent-pod"]);
    expect(result.stderr).toContain("docker builds");
    expect(result.status).toBe(0);
    const appVersion = (parseYaml(readFileSync(join(chartDir, "Chart.yaml"), "utf8")) as { appVersion: string }).appVersion;
    const builds = readFileSync(log, "utf8").split("\n").filter((line) => line.startsWith("build"));
    expect(builds).toEqual([
      `build -f images/api.Dockerfile -t registry.example/team/api:${appVersion} .`,
      `build -f images/agent-pod.Dockerfile -t registry.example/team/agent-pod:${appVersion} .`,
    ]);
  });
});
