/** The one model every end-to-end stack offers: the scripted fake LLM, with prices so costs count. */
export const TEST_MODEL = "test-model";
export const TEST_LLM_KEY = "llm-provider-key";

/** The API settings that make the scripted model at `baseUrl` the catalog and the default. */
export function scriptedModelEnv(baseUrl: string): Record<string, string> {
  return {
    MODEL_CATALOG: JSON.stringify({
      models: [
        {
          name: TEST_MODEL,
          baseUrl,
          apiKeyEnv: "TEST_LLM_KEY",
          efforts: ["none", "low"],
          recommendedEffort: "none",
          inputPricePerMillionUsd: "1",
          outputPricePerMillionUsd: "4",
        },
      ],
    }),
    TEST_LLM_KEY,
    DEFAULT_MODEL: TEST_MODEL,
  };
}
