import { MAX_STORAGE_STATE_BYTES, StorageState, cookieDomainsOf } from "@browser-agents/protocol";
import { errors } from "../errors.js";

/** decisions.md: anything but a valid Playwright storage state of at most 5 MiB is 400 invalid_storage_state. */
export function parseStorageState(body: unknown): StorageState {
  if (Buffer.byteLength(JSON.stringify(body ?? null)) > MAX_STORAGE_STATE_BYTES) {
    throw errors.invalidStorageState("Storage state exceeds 5 MiB.", { limitBytes: MAX_STORAGE_STATE_BYTES });
  }
  const parsed = StorageState.safeParse(body ?? {});
  if (!parsed.success) {
    const detail = parsed.error.issues.map((issue) => ({ loc: ["body", ...issue.path.map((p) => (typeof p === "number" ? p : String(p)))], msg: issue.message, type: issue.code }));
    const first = detail[0];
    throw errors.invalidStorageState(`Invalid storage state: ${first ? `${first.loc.join(".")}: ${first.msg}` : "malformed"}`, detail);
  }
  return parsed.data;
}

export { cookieDomainsOf };
