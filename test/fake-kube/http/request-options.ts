import { z } from "zod";
import { badRequest } from "../store/api-error.js";
import type { DeleteOptions, PatchKind, PropagationPolicy } from "../store/object-store.js";

const propagationPolicySchema = z.enum(["Orphan", "Background", "Foreground"]);

const deleteOptionsBodySchema = z
  .object({
    gracePeriodSeconds: z.number().int().optional(),
    propagationPolicy: propagationPolicySchema.optional(),
    orphanDependents: z.boolean().optional(),
    preconditions: z.object({ uid: z.string().optional(), resourceVersion: z.string().optional() }).optional(),
  })
  .loose();

function integerParam(query: URLSearchParams, name: string): number | undefined {
  const raw = query.get(name);
  if (raw === null || raw === "") return undefined;
  if (!/^-?\d+$/.test(raw)) throw badRequest(`invalid value for ${name}: ${raw}`);
  return Number(raw);
}

export function deleteOptions(query: URLSearchParams, body: unknown): DeleteOptions {
  const parsed = deleteOptionsBodySchema.safeParse(body ?? {});
  if (!parsed.success) throw badRequest(`DeleteOptions could not be decoded: ${parsed.error.issues[0]?.message ?? ""}`);
  const fromBody = parsed.data;
  const queryPolicy = query.get("propagationPolicy");
  const policyInput = queryPolicy ?? fromBody.propagationPolicy;
  let propagationPolicy: PropagationPolicy | undefined;
  if (policyInput !== undefined) {
    const policy = propagationPolicySchema.safeParse(policyInput);
    if (!policy.success) throw badRequest(`invalid propagationPolicy: ${String(policyInput)}`);
    propagationPolicy = policy.data;
  } else if (query.get("orphanDependents") === "true" || fromBody.orphanDependents === true) {
    propagationPolicy = "Orphan";
  }
  const options: DeleteOptions = {};
  const grace = integerParam(query, "gracePeriodSeconds") ?? fromBody.gracePeriodSeconds;
  if (grace !== undefined) options.gracePeriodSeconds = grace;
  if (propagationPolicy) options.propagationPolicy = propagationPolicy;
  if (fromBody.preconditions) options.preconditions = fromBody.preconditions;
  return options;
}

const PATCH_KINDS: Record<string, PatchKind> = {
  "application/merge-patch+json": "merge",
  "application/json-patch+json": "json",
  "application/strategic-merge-patch+json": "strategic",
  "application/apply-patch+yaml": "apply",
  "application/apply-patch+cbor": "apply",
};

export function patchKind(contentType: string | undefined): PatchKind | undefined {
  const mediaType = (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  return PATCH_KINDS[mediaType];
}

export const ACCEPTED_PATCH_TYPES = Object.keys(PATCH_KINDS).filter((type) => !type.endsWith("cbor"));

export interface ListOptions {
  labelSelector: string | undefined;
  fieldSelector: string | undefined;
  limit: number | undefined;
  continueToken: string | undefined;
  watch: boolean;
  resourceVersion: string | undefined;
  allowWatchBookmarks: boolean;
  timeoutSeconds: number | undefined;
}

export function listOptions(query: URLSearchParams): ListOptions {
  const watch = query.get("watch");
  return {
    labelSelector: query.get("labelSelector") ?? undefined,
    fieldSelector: query.get("fieldSelector") ?? undefined,
    limit: integerParam(query, "limit"),
    continueToken: query.get("continue") ?? undefined,
    watch: watch === "true" || watch === "1",
    resourceVersion: query.get("resourceVersion") ?? undefined,
    allowWatchBookmarks: query.get("allowWatchBookmarks") === "true",
    timeoutSeconds: integerParam(query, "timeoutSeconds"),
  };
}
