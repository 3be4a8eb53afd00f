import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/support/database.js";
import { createPrismaClient, type PrismaClient } from "./prisma.js";

let database: TestDatabase;
let db: PrismaClient;
beforeAll(async () => {
  database = await createTestDatabase();
  db = createPrismaClient(database.connectionString, { poolMax: 2 });
});
afterAll(async () => {
  await db.$disconnect();
  await database.drop();
});

it("reads back what it writes through the migrated schema", async () => {
  const tenant = await db.tenant.create({ data: { id: randomUUID(), name: `tenant-${randomUUID()}` } });
  const session = await db.session.create({
    data: { id: randomUUID(), tenantId: tenant.id, status: "created", model: "m", agentTokenHash: "h", maxCostUsd: "1.5" },
  });
  const first = await db.message.create({
    data: { id: randomUUID(), sessionId: session.id, role: "user", type: "text", data: "hello", summary: "hello" },
  });
  const second = await db.message.create({
    data: { id: randomUUID(), sessionId: session.id, role: "assistant", type: "text", data: "hi", summary: "hi" },
  });

  const loaded = await db.session.findUniqueOrThrow({ where: { id: session.id }, include: { messages: { orderBy: { seq: "asc" } } } });
  expect(loaded.maxCostUsd?.toString()).toBe("1.5");
  expect(loaded.llmCostUsd.toString()).toBe("0");
  expect(loaded.messages.map((message) => message.data)).toEqual(["hello", "hi"]);
  expect(typeof first.seq).toBe("bigint");
  expect(second.seq).toBeGreaterThan(first.seq);

  const profile = await db.profile.create({ data: { tenantId: tenant.id, id: "p1" } });
  expect(profile.storageState).toEqual({ cookies: [], origins: [] });
  expect(profile.cookieDomains).toEqual([]);
});
