import { readFileSync } from "node:fs";
import type { ModelEndpoint, ReasoningEffort } from "@browser-agents/protocol";
import type { Config } from "../config.js";
import { ConfigError } from "../config.js";
import { ModelCatalogInput } from "./catalog-schema.js";

export const REQUESTABLE_EFFORTS = ["default", "none", "low", "medium", "high", "xhigh", "max"] as const;
export type RequestedEffort = (typeof REQUESTABLE_EFFORTS)[number];

export interface CatalogModel {
  name: string;
  providerModel: string;
  baseUrl: string;
  apiKey: string | null;
  efforts: ReasoningEffort[];
  recommendedEffort: ReasoningEffort;
  inputPricePerMillionUsd: string;
  outputPricePerMillionUsd: string;
}

export class ModelCatalog {
  private readonly models: Map<string, CatalogModel>;

  constructor(models: CatalogModel[], readonly defaultModel: string) {
    this.models = new Map(models.map((model) => [model.name, model]));
    if (!this.models.has(defaultModel)) {
      throw new ConfigError(`DEFAULT_MODEL "${defaultModel}" is not in the model catalog (${[...this.models.keys()].join(", ")})`);
    }
  }

  get(name: string): CatalogModel | undefined {
    return this.models.get(name);
  }

  names(): string[] {
    return [...this.models.keys()];
  }

  /** The effort the provider receives: "default" means the model's recommended one. */
  resolveEffort(model: CatalogModel, requested: RequestedEffort): ReasoningEffort | null {
    if (requested === "default") return model.recommendedEffort;
    return model.efforts.includes(requested) ? requested : null;
  }

  endpointFor(model: CatalogModel, requested: RequestedEffort): ModelEndpoint {
    return {
      name: model.name,
      providerModel: model.providerModel,
      baseUrl: model.baseUrl,
      apiKey: model.apiKey,
      reasoningEffort: this.resolveEffort(model, requested) ?? model.recommendedEffort,
      inputPricePerMillionUsd: model.inputPricePerMillionUsd,
      outputPricePerMillionUsd: model.outputPricePerMillionUsd,
    };
  }
}

/**
 * Builds the catalog from MODEL_CATALOG / MODEL_CATALOG_FILE, or, when neither is set, a one-model
 * catalog from OPENAI_BASE_URL, OPENAI_API_KEY and DEFAULT_MODEL (enough for a first start).
 */
export function loadModelCatalog(config: Config, env: Record<string, string | undefined>): ModelCatalog {
  const text = config.MODEL_CATALOG ?? (config.MODEL_CATALOG_FILE ? readCatalogFile(config.MODEL_CATALOG_FILE) : undefined);
  if (text === undefined) {
    return new ModelCatalog(
      [
        {
          name: config.DEFAULT_MODEL,
          providerModel: config.DEFAULT_MODEL,
          baseUrl: config.OPENAI_BASE_URL,
          apiKey: config.OPENAI_API_KEY ?? null,
          efforts: ["none", "low", "medium", "high"],
          recommendedEffort: "none",
          inputPricePerMillionUsd: "0.4",
          outputPricePerMillionUsd: "1.6",
        },
      ],
      config.DEFAULT_MODEL,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`MODEL_CATALOG is not valid JSON: ${(error as Error).message}`);
  }
  const parsed = ModelCatalogInput.safeParse(json);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  models.${issue.path.join(".")}: ${issue.message}`);
    throw new ConfigError(`MODEL_CATALOG is invalid:\n${lines.join("\n")}`);
  }
  const models = parsed.data.models.map((entry): CatalogModel => {
    const apiKey = entry.apiKeyEnv ? env[entry.apiKeyEnv] : undefined;
    if (entry.apiKeyEnv && !apiKey) {
      throw new ConfigError(`model "${entry.name}" reads its API key from ${entry.apiKeyEnv}, which is not set`);
    }
    return {
      name: entry.name,
      providerModel: entry.providerModel ?? entry.name,
      baseUrl: entry.baseUrl,
      apiKey: apiKey ?? null,
      efforts: entry.efforts,
      recommendedEffort: entry.recommendedEffort,
      inputPricePerMillionUsd: entry.inputPricePerMillionUsd,
      outputPricePerMillionUsd: entry.outputPricePerMillionUsd,
    };
  });
  return new ModelCatalog(models, config.DEFAULT_MODEL);
}

function readCatalogFile(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    throw new ConfigError(`MODEL_CATALOG_FILE ${path} cannot be read: ${(error as Error).message}`);
  }
}
