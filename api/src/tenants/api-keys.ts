import { randomBytes } from "node:crypto";
import { hashToken } from "@browser-agents/protocol";
import type { PrismaClient } from "../db/client-types.js";
import { newId } from "../ids.js";

export interface TenantIdentity {
  tenantId: string;
  tenantName: string;
}

export function generateApiKey(): string {
  return `bu_${randomBytes(32).toString("base64url")}`;
}

/** The stored form of a key: keys are random 256-bit secrets, so a plain SHA-256 suffices. */
export const hashApiKey = hashToken;

export async function findOrCreateTenant(db: PrismaClient, name: string): Promise<{ id: string; name: string }> {
  return db.tenant.upsert({ where: { name }, update: {}, create: { id: newId(), name }, select: { id: true, name: true } });
}

export async function addApiKey(db: PrismaClient, tenantId: string, key: string): Promise<{ id: string; keyPrefix: string }> {
  return db.apiKey.create({
    data: { id: newId(), tenantId, keyHash: hashApiKey(key), keyPrefix: key.slice(0, 10) },
    select: { id: true, keyPrefix: true },
  });
}

/** Creates the tenant if needed and a new key for it; the key is returned once and never stored. */
export async function createApiKey(db: PrismaClient, tenantName: string): Promise<{ key: string; keyId: string; tenantId: string }> {
  const tenant = await findOrCreateTenant(db, tenantName);
  const key = generateApiKey();
  const created = await addApiKey(db, tenant.id, key);
  return { key, keyId: created.id, tenantId: tenant.id };
}

/** BOOTSTRAP_API_KEY: make sure this exact key exists (and is not revoked) for the tenant. */
export async function ensureBootstrapKey(db: PrismaClient, tenantName: string, key: string): Promise<void> {
  const tenant = await findOrCreateTenant(db, tenantName);
  const keyHash = hashApiKey(key);
  const existing = await db.apiKey.findUnique({ where: { keyHash } });
  if (!existing) {
    await addApiKey(db, tenant.id, key);
  } else if (existing.tenantId !== tenant.id || existing.revokedAt) {
    await db.apiKey.update({ where: { keyHash }, data: { tenantId: tenant.id, revokedAt: null } });
  }
}

export async function listApiKeys(db: PrismaClient, tenantName?: string) {
  return db.apiKey.findMany({
    where: tenantName ? { tenant: { name: tenantName } } : {},
    orderBy: { createdAt: "asc" },
    select: { id: true, keyPrefix: true, createdAt: true, revokedAt: true, lastUsedAt: true, tenant: { select: { name: true } } },
  });
}

export async function revokeApiKey(db: PrismaClient, keyId: string): Promise<boolean> {
  const { count } = await db.apiKey.updateMany({ where: { id: keyId, revokedAt: null }, data: { revokedAt: new Date() } });
  return count === 1;
}

/** `lastUsedAt` is refreshed at most this often, so authentication stays a single read. */
const LAST_USED_RESOLUTION_MS = 60_000;

export async function identifyApiKey(db: PrismaClient, key: string, now = new Date()): Promise<TenantIdentity | null> {
  // One statement on every request's path: the key and its tenant together.
  const [found] = await db.$queryRaw<{ keyId: string; revokedAt: Date | null; lastUsedAt: Date | null; tenantId: string; tenantName: string }[]>`
    SELECT k."id" AS "keyId", k."revokedAt", k."lastUsedAt", t."id" AS "tenantId", t."name" AS "tenantName"
    FROM "ApiKey" k JOIN "Tenant" t ON t."id" = k."tenantId"
    WHERE k."keyHash" = ${hashApiKey(key)}`;
  if (!found || found.revokedAt) return null;
  if (!found.lastUsedAt || now.getTime() - found.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
    // Bookkeeping only: a failure here must not fail the request.
    void db.apiKey.update({ where: { id: found.keyId }, data: { lastUsedAt: now } }).catch(() => undefined);
  }
  return { tenantId: found.tenantId, tenantName: found.tenantName };
}
