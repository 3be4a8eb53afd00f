import { z } from "zod";

/** Playwright `storageState()` format, as decisions.md fixes it for profiles. */
export const StorageStateCookie = z.object({
  name: z.string().min(1),
  value: z.string(),
  domain: z.string().min(1),
  path: z.string().default("/"),
  expires: z.number().default(-1),
  httpOnly: z.boolean().default(false),
  secure: z.boolean().default(false),
  sameSite: z.enum(["Strict", "Lax", "None"]).default("Lax"),
});
export type StorageStateCookie = z.infer<typeof StorageStateCookie>;

const urlOrigin = z.string().refine((value) => {
  try {
    const url = new URL(value);
    return url.origin !== "null" && url.origin === value.replace(/\/$/, "");
  } catch {
    return false;
  }
}, "must be a URL origin such as https://example.com");

export const StorageStateOrigin = z.object({
  origin: urlOrigin,
  localStorage: z.array(z.object({ name: z.string(), value: z.string() })).default([]),
});
export type StorageStateOrigin = z.infer<typeof StorageStateOrigin>;

export const StorageState = z.object({
  cookies: z.array(StorageStateCookie).default([]),
  origins: z.array(StorageStateOrigin).default([]),
});
export type StorageState = z.infer<typeof StorageState>;

export const MAX_STORAGE_STATE_BYTES = 5 * 1024 * 1024;

export function cookieDomainsOf(state: StorageState): string[] {
  return [...new Set(state.cookies.map((cookie) => cookie.domain))].sort();
}
