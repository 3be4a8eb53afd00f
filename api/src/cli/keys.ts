import { parseArgs } from "node:util";
import { parseConfig } from "../config.js";
import { applyMigrations } from "../db/migrate.js";
import { openDatabase } from "../db/open-database.js";
import { createPrismaClient } from "../db/prisma.js";
import { createLogger } from "../logger.js";
import { createApiKey, listApiKeys, revokeApiKey } from "../tenants/api-keys.js";

const usage = `Usage:
  npm run keys -- create --tenant NAME   create the tenant if needed and print a new API key (shown once)
  npm run keys -- list [--tenant NAME]   list keys (prefix, tenant, created, revoked)
  npm run keys -- revoke KEY_ID          revoke a key
Uses DATABASE_URL, or the embedded Postgres in DATA_DIR (default .data) when unset.`;

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { tenant: { type: "string" }, help: { type: "boolean" } } });
  const [command, ...rest] = positionals;
  if (values.help || !command || !["create", "list", "revoke"].includes(command)) {
    process.stderr.write(`${usage}\n`);
    return values.help ? 0 : 2;
  }
  const config = parseConfig(process.env);
  const logger = createLogger("warn");
  const database = await openDatabase(config, logger, { shareRunning: true });
  await applyMigrations(database.connectionString, { migrationsDir: config.MIGRATIONS_DIR, logger });
  const db = createPrismaClient(database.connectionString);
  try {
    if (command === "create") {
      if (!values.tenant) {
        process.stderr.write("create needs --tenant NAME\n");
        return 2;
      }
      const created = await createApiKey(db, values.tenant);
      process.stdout.write(`tenant: ${values.tenant}\nkey id: ${created.keyId}\napi key: ${created.key}\nStore the key now: it is not shown again.\n`);
    } else if (command === "list") {
      for (const key of await listApiKeys(db, values.tenant)) {
        const state = key.revokedAt ? `revoked ${key.revokedAt.toISOString()}` : "active";
        process.stdout.write(`${key.id}  ${key.keyPrefix}…  tenant=${key.tenant.name}  created=${key.createdAt.toISOString()}  ${state}\n`);
      }
    } else {
      const keyId = rest[0];
      if (!keyId) {
        process.stderr.write("revoke needs KEY_ID (see `list`)\n");
        return 2;
      }
      const revoked = await revokeApiKey(db, keyId);
      process.stdout.write(revoked ? `revoked ${keyId}\n` : `no active key ${keyId}\n`);
      if (!revoked) return 1;
    }
    return 0;
  } finally {
    await db.$disconnect();
    await database.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
