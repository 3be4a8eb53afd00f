import { z } from "zod";
import { DecimalString, ReasoningEffort } from "@browser-agents/protocol";

export const ModelCatalogEntryInput = z
  .object({
    /** The name clients pass as `model`. */
    name: z.string().min(1),
    /** The model id sent to the provider; defaults to `name`. */
    providerModel: z.string().min(1).optional(),
    /** OpenAI-compatible endpoint, e.g. https://api.openai.com/v1 */
    baseUrl: z.string().url(),
    /** Name of the environment variable holding the provider key (keys never sit in the catalog). */
    apiKeyEnv: z.string().min(1).optional(),
    efforts: z.array(ReasoningEffort).min(1).default(["none"]),
    recommendedEffort: ReasoningEffort.default("none"),
    inputPricePerMillionUsd: z.union([DecimalString, z.number().nonnegative()]).transform(String).default("0"),
    outputPricePerMillionUsd: z.union([DecimalString, z.number().nonnegative()]).transform(String).default("0"),
  })
  .refine((entry) => entry.efforts.includes(entry.recommendedEffort), {
    message: "recommendedEffort must be one of efforts",
    path: ["recommendedEffort"],
  });

export const ModelCatalogInput = z.object({ models: z.array(ModelCatalogEntryInput).min(1) });
export type ModelCatalogInput = z.infer<typeof ModelCatalogInput>;
