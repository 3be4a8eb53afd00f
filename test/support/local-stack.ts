import { startFakeLlm, type FakeLlm, type FakeLlmScript } from "../fake-llm/index.js";
import { startTestSite, type TestSite } from "../site/index.js";
import { startApiHarness, type ApiHarness } from "./api-harness.js";
import { TEST_LLM_KEY, scriptedModelEnv } from "./scripted-model.js";


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
  const llm = await startFakeLlm({ scripts: options.scripts?.(site) ?? [], apiKey: TEST_LLM_KEY });
  const logLines: string[] = [];
  const api = await startApiHarness(
    {
      SESSION_RUNTIME: "local",
      LOG_LEVEL: "info",
      ...scriptedModelEnv(llm.baseUrl),
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
