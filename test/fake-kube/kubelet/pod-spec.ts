import { z } from "zod";

/** The parts of a pod the fake kubelet acts on. */
const keyRefSchema = z.object({ name: z.string(), key: z.string(), optional: z.boolean().optional() }).loose();

export const envVarSchema = z
  .object({
    name: z.string(),
    value: z.string().optional(),
    valueFrom: z
      .object({
        secretKeyRef: keyRefSchema.optional(),
        configMapKeyRef: keyRefSchema.optional(),
        fieldRef: z.object({ fieldPath: z.string() }).loose().optional(),
      })
      .loose()
      .optional(),
  })
  .loose();

export const containerSchema = z
  .object({
    name: z.string(),
    image: z.string(),
    command: z.array(z.string()).optional(),
    args: z.array(z.string()).optional(),
    workingDir: z.string().optional(),
    env: z.array(envVarSchema).optional(),
    envFrom: z
      .array(
        z
          .object({
            prefix: z.string().optional(),
            secretRef: z.object({ name: z.string(), optional: z.boolean().optional() }).loose().optional(),
            configMapRef: z.object({ name: z.string(), optional: z.boolean().optional() }).loose().optional(),
          })
          .loose(),
      )
      .optional(),
  })
  .loose();

export const podSchema = z
  .object({
    metadata: z
      .object({
        name: z.string(),
        namespace: z.string(),
        uid: z.string(),
        deletionTimestamp: z.string().optional(),
        deletionGracePeriodSeconds: z.number().optional(),
        labels: z.record(z.string(), z.string()).optional(),
        annotations: z.record(z.string(), z.string()).optional(),
      })
      .loose(),
    spec: z
      .object({
        containers: z.array(containerSchema).min(1),
        nodeName: z.string().optional(),
        activeDeadlineSeconds: z.number().optional(),
        terminationGracePeriodSeconds: z.number().optional(),
        serviceAccountName: z.string().optional(),
      })
      .loose(),
    status: z.object({ phase: z.string().optional(), qosClass: z.string().optional() }).loose().optional(),
  })
  .loose();

export type EnvVar = z.infer<typeof envVarSchema>;
export type Container = z.infer<typeof containerSchema>;
export type Pod = z.infer<typeof podSchema>;
