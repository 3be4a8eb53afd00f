import { startFakeLlm, type FakeLlm, type FakeLlmScript } from "../fake-llm/index.js";
import { startTestSite, type TestSite } from "../site/index.js";
import { startApiHarness, type ApiHarness } from "./api-harness.js";

export const TEST_MODEL = "test-model";

export interface LocalStack {
  api: ApiHarness;
  llm: FakeLlm;
  site: TestSite;
  key: string;
  logLines: string[];
  close(): Promise<void>;
}

/**
 * The whole platform on one machine as a newcomer runs it: the API with its local runtime
 * starting real agent-pod processes driving real Chromium, a scripted model, a local web site.
 */
export async function startLocalStack(options: { scripts?: (site: TestSite) => FakeLlmScript[]; env?: Record<string, string> } = {}): Promise<LocalStack> {
  const site = await startTestSite();
  const llm = await startFakeLlm({ scripts: options.scripts?.(site) ?? [], apiKey: "llm-provider-key" });
  const logLines: string[] = [];
  const api = await startApiHarness(
    {
      SESSION_RUNTIME: "local",
      LOG_LEVEL: "info",
      MODEL_CATALOG: JSON.stringify({
        models: [
          {
            name: TEST_MODEL,
            baseUrl: llm.baseUrl,
            apiKeyEnv: "TEST_LLM_KEY",
            efforts: ["none", "low"],
            recommendedEffort: "none",
            inputPricePerMillionUsd: "1",
            outputPricePerMillionUsd: "4",
          },
        ],
      }),
      TEST_LLM_KEY: "llm-provider-key",
      DEFAULT_MODEL: TEST_MODEL,
      ...options.env,
    },
    { logLines },
  );
  const key = await api.newTenantKey();
  return {
    api,
    llm,
    site,
    key,
    logLines,
    async close() {
      await api.close();
      await llm.close();
      await site.close();
    },
  };
}
