// Prisma's schema engine compiled to WebAssembly (@prisma/schema-engine-wasm, pinned exactly: Prisma
// calls it internal and unstable). It does what `prisma migrate diff` does without the native engine,
// which cannot be downloaded on every machine. Its use is covered by api/src/db/migrations.test.ts.
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import * as glue from "@prisma/schema-engine-wasm/schema_engine_bg";
import type { SchemaEngine } from "@prisma/schema-engine-wasm";
import type { ErrorCapturingSqlMigrationAwareDriverAdapterFactory } from "@prisma/driver-adapter-utils";

export type { SchemaEngine } from "@prisma/schema-engine-wasm";

export interface SchemaFile {
  path: string;
  content: string;
}

// lib ES2023 has no WebAssembly types (they come with the DOM lib); only this much is used.
interface WebAssemblyApi {
  instantiate(
    bytes: Uint8Array,
    imports: Record<string, Record<string, unknown>>,
  ): Promise<{ instance: { exports: Record<string, unknown> } }>;
  RuntimeError: abstract new (...args: never[]) => Error;
}
const wasmApi = (globalThis as unknown as { WebAssembly: WebAssemblyApi }).WebAssembly;

let lastPanicMessage: string | undefined;
let loading: Promise<void> | undefined;

/** Instantiates the engine once per process. */
function loadWasm(): Promise<void> {
  loading ??= instantiate();
  return loading;
}

async function instantiate(): Promise<void> {
  // The engine reports a Rust panic through this global before trapping; keep it for the error.
  Object.assign(globalThis, {
    PRISMA_WASM_PANIC_REGISTRY: { set_message: (message: string) => (lastPanicMessage = message) },
  });
  // Node 20 cannot import a .wasm file as a module: instantiate the bytes with the package's glue.
  const entry = createRequire(import.meta.url).resolve("@prisma/schema-engine-wasm");
  const bytes = await readFile(path.join(path.dirname(entry), "schema_engine_bg.wasm"));
  const { instance } = await wasmApi.instantiate(bytes, {
    "./schema_engine_bg.js": withUnrefTimers(glue),
  });
  glue.__wbg_set_wasm(instance.exports);
  const start = instance.exports["__wbindgen_start"];
  if (typeof start !== "function") throw new Error("@prisma/schema-engine-wasm: __wbindgen_start is missing");
  start();
}

/** The engine's own timers (connection timeouts) must not keep a finished process alive for seconds. */
function withUnrefTimers(imports: typeof glue): Record<string, unknown> {
  const patched: Record<string, unknown> = { ...imports };
  const timerImports = Object.keys(patched).filter((name) => name.startsWith("__wbg_setTimeout_"));
  if (timerImports.length === 0) throw new Error("@prisma/schema-engine-wasm: setTimeout import not found");
  for (const name of timerImports) {
    patched[name] = (callback: () => void, milliseconds: number) => setTimeout(callback, milliseconds >>> 0).unref();
  }
  return patched;
}

export interface OpenSchemaEngineOptions {
  adapterFactory: ErrorCapturingSqlMigrationAwareDriverAdapterFactory;
  /** The Prisma schema files the engine starts with (may be empty). */
  schemaFiles: SchemaFile[];
  onLog?: (line: string) => void;
}

/** A schema engine connected through `adapterFactory`; `free()` it when done. */
export async function openSchemaEngine(options: OpenSchemaEngineOptions): Promise<SchemaEngine> {
  await loadWasm();
  const datamodels: [string, string][] = options.schemaFiles.map((file) => [file.path, file.content]);
  return await runEngineCall(() =>
    glue.SchemaEngine.new(
      { datamodels: datamodels.length > 0 ? datamodels : undefined },
      (line: string) => options.onLog?.(line),
      options.adapterFactory,
    ),
  );
}

/** Runs one engine call, naming the panic when the engine traps on one. */
export async function runEngineCall<T>(call: () => Promise<T>): Promise<T> {
  lastPanicMessage = undefined;
  try {
    return await call();
  } catch (error) {
    if (error instanceof wasmApi.RuntimeError && lastPanicMessage !== undefined) {
      throw new Error(`Schema engine panicked: ${lastPanicMessage}`, { cause: error });
    }
    throw error;
  }
}
