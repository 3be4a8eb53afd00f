// The driver adapter the wasm schema engine talks to Postgres through. Shadow databases come from
// our own factory: adapter-pg's would reuse the main database when given a connection string
// (P3006 "relation already exists") and drops the shadow while its pool is still open.
import { randomUUID } from "node:crypto";
import pg from "pg";
import { PrismaPg } from "@prisma/adapter-pg";
import {
  bindMigrationAwareSqlAdapterFactory,
  type ErrorCapturingSqlMigrationAwareDriverAdapterFactory,
  type SqlDriverAdapter,
} from "@prisma/driver-adapter-utils";
import { connectionStringForDatabase, quoteIdentifier } from "../../api/src/db/connection-string.js";
import { readCharColumns } from "./read-char-columns.js";

export interface EngineAdapterOptions {
  /** The database the engine describes and changes. */
  mainConnectionString: string;
  /** A server on which scratch shadow databases may be created and dropped. */
  shadowServerConnectionString: string;
}

export interface EngineAdapter {
  factory: ErrorCapturingSqlMigrationAwareDriverAdapterFactory;
  /** Closes every connection the engine left open and drops leftover shadow databases. */
  close(): Promise<void>;
}

export function createEngineAdapter(options: EngineAdapterOptions): EngineAdapter {
  const open = new Set<SqlDriverAdapter>();

  function track(adapter: SqlDriverAdapter, afterDispose?: () => Promise<void>): SqlDriverAdapter {
    open.add(adapter);
    const dispose = adapter.dispose.bind(adapter);
    adapter.dispose = async () => {
      if (!open.delete(adapter)) return;
      await dispose();
      await afterDispose?.();
    };
    return readCharColumns(adapter);
  }

  async function connectTo(connectionString: string): Promise<SqlDriverAdapter> {
    const pool = new pg.Pool({ connectionString, max: 2 });
    return await new PrismaPg(pool, { disposeExternalPool: true }).connect();
  }

  const factory = bindMigrationAwareSqlAdapterFactory({
    provider: "postgres",
    adapterName: "@prisma/adapter-pg",
    connect: async () => track(await connectTo(options.mainConnectionString)),
    connectToShadowDb: async () => {
      const database = `prisma_shadow_${randomUUID().replaceAll("-", "")}`;
      await runOnServer(options.shadowServerConnectionString, `CREATE DATABASE ${quoteIdentifier(database)}`);
      const adapter = await connectTo(connectionStringForDatabase(options.shadowServerConnectionString, database));
      return track(adapter, () =>
        runOnServer(options.shadowServerConnectionString, `DROP DATABASE IF EXISTS ${quoteIdentifier(database)} WITH (FORCE)`),
      );
    },
  });

  return {
    factory,
    close: async () => {
      await Promise.all([...open].map((adapter) => adapter.dispose()));
    },
  };
}

async function runOnServer(connectionString: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
