import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chown, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { PostgresBinaries } from "./postgres-binaries.js";

export interface PostgresServerOptions {
  binaries: PostgresBinaries;
  dataDir: string;
  port: number;
  superuser: string;
  password: string;
  initdbFlags: string[];
  postgresFlags: string[];
  onLog(line: string): void;
}

/** initdb and the postmaster of one embedded cluster, run as the binaries' user. */
export class PostgresServerProcess {
  private process: ChildProcess | null = null;

  constructor(private readonly options: PostgresServerOptions) {}

  async initialise(): Promise<void> {
    const { binaries, dataDir } = this.options;
    await mkdir(dataDir, { recursive: true });
    if (binaries.runAs) await chown(dataDir, binaries.runAs.uid, binaries.runAs.gid);
    const passwordFile = path.join(tmpdir(), `pg-password-${randomBytes(6).toString("hex")}`);
    await writeFile(passwordFile, `${this.options.password}\n`, { mode: 0o600 });
    if (binaries.runAs) await chown(passwordFile, binaries.runAs.uid, binaries.runAs.gid);
    try {
      const args = [`--pgdata=${dataDir}`, "--auth=scram-sha-256", `--username=${this.options.superuser}`, `--pwfile=${passwordFile}`, "--lc-messages=C", ...this.options.initdbFlags];
      const child = this.spawn(binaries.initdb, args);
      let stderr = "";
      child.stderr?.setEncoding("utf8").on("data", (text: string) => {
        stderr += text;
      });
      const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
        child.once("error", reject);
        child.once("close", (exitCode, exitSignal) => resolve([exitCode, exitSignal]));
      });
      if (code !== 0) throw new Error(`initdb failed (code ${code}, signal ${signal}): ${stderr}`);
    } finally {
      await rm(passwordFile, { force: true });
    }
  }

  /** Resolves once the server accepts connections; rejects if it exits first. */
  async start(): Promise<void> {
    const child = this.spawn(this.options.binaries.postgres, ["-D", this.options.dataDir, "-p", String(this.options.port), ...this.options.postgresFlags]);
    this.process = child;
    await new Promise<void>((resolve, reject) => {
      child.once("error", reject);
      child.stderr?.setEncoding("utf8").on("data", (text: string) => {
        if (text.includes("database system is ready to accept connections")) resolve();
      });
      child.once("close", () => reject(new Error("the Postgres server exited during start-up")));
    });
  }

  /** Fast shutdown (SIGINT): clean, without waiting for clients. */
  async stop(): Promise<void> {
    const child = this.process;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGINT");
    await exited;
  }

  private spawn(binary: string, args: string[]): ChildProcess {
    const { runAs } = this.options.binaries;
    const child = spawn(binary, args, { ...(runAs ?? {}), env: { ...process.env, LC_MESSAGES: "C" }, stdio: ["ignore", "pipe", "pipe"] });
    for (const stream of [child.stdout, child.stderr]) {
      stream?.setEncoding("utf8").on("data", (text: string) => {
        for (const line of text.split("\n").filter(Boolean)) this.options.onLog(line);
      });
    }
    return child;
  }
}
