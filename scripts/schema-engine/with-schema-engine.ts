import { createEngineAdapter, type EngineAdapterOptions } from "./engine-adapter.js";
import { openSchemaEngine, type SchemaEngine } from "./wasm-schema-engine.js";

/** Opens an engine on `databases`, runs `work`, then frees the engine and every connection it opened. */
export async function withSchemaEngine<T>(
  databases: EngineAdapterOptions,
  work: (engine: SchemaEngine) => Promise<T>,
): Promise<T> {
  const adapter = createEngineAdapter(databases);
  try {
    const engine = await openSchemaEngine({ adapterFactory: adapter.factory, schemaFiles: [] });
    try {
      return await work(engine);
    } finally {
      engine.free();
    }
  } finally {
    await adapter.close();
  }
}
