import { execFileSync, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { parseAllDocuments } from "yaml";

export const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
export const chartDir = fileURLToPath(new URL("../../charts/browser-agents/", import.meta.url));

/** A rendered Kubernetes object; only the fields every object has are typed. */
export interface KubernetesObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

let cachedHelm: string | undefined;

/** The helm binary from scripts/fetch-helm.sh (fetched once, then cached under node_modules/.cache). */
export function helmBinary(): string {
  cachedHelm ??= execFileSync("bash", [`${repoRoot}scripts/fetch-helm.sh`], { encoding: "utf8" }).trim();
  return cachedHelm;
}

export interface HelmResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function runHelm(args: string[]): HelmResult {
  const result = spawnSync(helmBinary(), args, {
    encoding: "utf8",
    // helm must not find a cluster or a user's configuration on the machine running the tests.
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: "/nonexistent", KUBECONFIG: "/dev/null" },
    maxBuffer: 64 * 1024 * 1024,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

export interface RenderOptions {
  valuesFiles?: string[];
  set?: string[];
  setJson?: string[];
  namespace?: string;
  releaseName?: string;
}

function valueArgs(options: RenderOptions): string[] {
  return [
    ...(options.valuesFiles ?? []).flatMap((file) => ["-f", `${chartDir}${file}`]),
    ...(options.set ?? []).flatMap((assignment) => ["--set", assignment]),
    ...(options.setJson ?? []).flatMap((assignment) => ["--set-json", assignment]),
  ];
}

/** `helm template` with CRDs. */
export function templateChart(options: RenderOptions = {}): HelmResult {
  return runHelm([
    "template",
    options.releaseName ?? "agents",
    chartDir,
    "--namespace",
    options.namespace ?? "browser-agents",
    "--include-crds",
    ...valueArgs(options),
  ]);
}

export function renderChart(options: RenderOptions = {}): KubernetesObject[] {
  const result = templateChart(options);
  if (result.status !== 0) throw new Error(`helm template failed:\n${result.stderr}`);
  return parseManifests(result.stdout);
}

export function lintChart(options: RenderOptions = {}): HelmResult {
  return runHelm(["lint", "--strict", chartDir, "--namespace", options.namespace ?? "browser-agents", ...valueArgs(options)]);
}

export function parseManifests(text: string): KubernetesObject[] {
  return parseAllDocuments(text)
    .map((document) => {
      if (document.errors.length > 0) throw new Error(`rendered YAML does not parse: ${document.errors[0]?.message}`);
      return document.toJS() as unknown;
    })
    .filter((value): value is KubernetesObject => typeof value === "object" && value !== null);
}

export function findObject(objects: KubernetesObject[], kind: string, name: string): KubernetesObject {
  const found = objects.find((object) => object.kind === kind && object.metadata.name === name);
  if (!found) {
    const present = objects.map((object) => `${object.kind}/${object.metadata.name}`).join(", ");
    throw new Error(`no ${kind}/${name} among: ${present}`);
  }
  return found;
}

/** NOTES.txt as `helm install` prints it (a client-side dry run needs no cluster). */
export function renderNotes(options: RenderOptions = {}): string {
  const result = runHelm([
    "install",
    options.releaseName ?? "agents",
    chartDir,
    "--namespace",
    options.namespace ?? "browser-agents",
    "--dry-run=client",
    ...valueArgs(options),
  ]);
  if (result.status !== 0) throw new Error(`helm install --dry-run failed:\n${result.stderr}`);
  const notes = result.stdout.split("\nNOTES:\n")[1];
  if (notes === undefined) throw new Error("helm printed no NOTES");
  return notes;
}
