import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, expect, it } from "vitest";
import { readCrdFile, startFakeKube, type FakeKube } from "../fake-kube/index.js";
import { SIGNING_KEY } from "./operator-harness.js";

const MAIN = fileURLToPath(new URL("../../operator/src/main.ts", import.meta.url));
const CRD = fileURLToPath(new URL("../../crds/agentsession.yaml", import.meta.url));

let kube: FakeKube;
let directory: string;
let child: ChildProcess | undefined;

beforeEach(async () => {
  kube = await startFakeKube({ crds: await readCrdFile(CRD) });
  directory = await mkdtemp(join(tmpdir(), "operator-main-"));
});

afterEach(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    child.kill("SIGKILL");
    await once(child, "exit");
  }
  await kube.close();
  await rm(directory, { recursive: true, force: true });
});

function startMain(env: Record<string, string>): ChildProcess {
  const started = spawn(process.execPath, ["--import", "tsx", MAIN], {
    env: { PATH: process.env.PATH ?? "", HOME: directory, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  started.stdout?.resume();
  started.stderr?.setEncoding("utf8");
  return started;
}

const lease = () => kube.get("leases", "default", "browser-agents-operator") as { spec?: { holderIdentity?: string } } | undefined;

it("takes the lease, and on SIGTERM releases it and exits 0", async () => {
  const kubeconfig = join(directory, "kubeconfig");
  await writeFile(kubeconfig, kube.kubeconfigYaml);
  child = startMain({ KUBECONFIG: kubeconfig, AGENT_TOKEN_SIGNING_KEY: SIGNING_KEY, POD_NAME: "operator-main", METRICS_HOST: "127.0.0.1", METRICS_PORT: "0", LOG_LEVEL: "warn" });
  await kube.waitFor("leases", "default", "browser-agents-operator", (object) => object !== undefined, { timeoutMs: 20_000 });
  expect(lease()?.spec?.holderIdentity).toBe("operator-main");

  child.kill("SIGTERM");
  const [code] = (await once(child, "exit")) as [number | null];
  expect(code).toBe(0);
  expect(lease()?.spec?.holderIdentity).toBe("");
});
