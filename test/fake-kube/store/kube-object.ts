import { z } from "zod";

/** What every stored object looks like to the fake; everything beyond metadata stays free-form JSON. */
export const ownerReferenceSchema = z
  .object({
    apiVersion: z.string(),
    kind: z.string(),
    name: z.string(),
    uid: z.string(),
    controller: z.boolean().optional(),
    blockOwnerDeletion: z.boolean().optional(),
  })
  .loose();

export const objectMetaSchema = z
  .object({
    name: z.string().optional(),
    generateName: z.string().optional(),
    namespace: z.string().optional(),
    uid: z.string().optional(),
    resourceVersion: z.string().optional(),
    generation: z.number().int().optional(),
    creationTimestamp: z.string().optional(),
    deletionTimestamp: z.string().optional(),
    deletionGracePeriodSeconds: z.number().int().optional(),
    labels: z.record(z.string(), z.string()).optional(),
    annotations: z.record(z.string(), z.string()).optional(),
    finalizers: z.array(z.string()).optional(),
    ownerReferences: z.array(ownerReferenceSchema).optional(),
  })
  .loose();

export const kubeObjectSchema = z
  .object({
    apiVersion: z.string().optional(),
    kind: z.string().optional(),
    metadata: objectMetaSchema.optional().default({}),
  })
  .loose();

export type OwnerReference = z.infer<typeof ownerReferenceSchema>;
export type ObjectMeta = z.infer<typeof objectMetaSchema>;
export type KubeObject = z.infer<typeof kubeObjectSchema>;

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Kubernetes timestamps are RFC 3339 with second precision. */
export function kubeTimestamp(date: Date = new Date()): string {
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}
