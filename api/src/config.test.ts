import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "./config.js";
import { loadModelCatalog } from "./models/catalog.js";

describe("parseConfig", () => {
  it("has a documented default for every setting", () => {
    const config = parseConfig({});
    expect(config).toMatchObject({ HOST: "127.0.0.1", PORT: 8080, SESSION_RUNTIME: "local", DEFAULT_MODEL: "gpt-4.1-mini", BODY_LIMIT_BYTES: 1048576 });
  });

  it("says which variable to fix", () => {
    expect(() => parseConfig({ PORT: "eighty" })).toThrow(/PORT/);
    expect(() => parseConfig({ SESSION_RUNTIME: "kubernetes" })).toThrow(/AGENT_TOKEN_SIGNING_KEY/);
    expect(() => parseConfig({ DATABASE_URL: "not a url" })).toThrow(ConfigError);
  });
});

describe("loadModelCatalog", () => {
  it("builds a one-model catalog from OPENAI_* and DEFAULT_MODEL", () => {
    const catalog = loadModelCatalog(parseConfig({ OPENAI_API_KEY: "sk-1", DEFAULT_MODEL: "m1" }), {});
    const model = catalog.get("m1")!;
    expect(model).toMatchObject({ apiKey: "sk-1", recommendedEffort: "none" });
    expect(catalog.resolveEffort(model, "default")).toBe("none");
    expect(catalog.resolveEffort(model, "max")).toBeNull();
  });

  it("reads provider keys from the variables the catalog names, and refuses a catalog without the default model", () => {
    const text = JSON.stringify({ models: [{ name: "a", baseUrl: "http://x.test/v1", apiKeyEnv: "A_KEY", efforts: ["low", "high"], recommendedEffort: "high" }] });
    const catalog = loadModelCatalog(parseConfig({ MODEL_CATALOG: text, DEFAULT_MODEL: "a" }), { A_KEY: "secret" });
    expect(catalog.endpointFor(catalog.get("a")!, "default")).toMatchObject({ apiKey: "secret", reasoningEffort: "high", providerModel: "a" });
    expect(() => loadModelCatalog(parseConfig({ MODEL_CATALOG: text, DEFAULT_MODEL: "a" }), {})).toThrow(/A_KEY/);
    expect(() => loadModelCatalog(parseConfig({ MODEL_CATALOG: text, DEFAULT_MODEL: "b" }), { A_KEY: "s" })).toThrow(/DEFAULT_MODEL/);
    expect(() => loadModelCatalog(parseConfig({ MODEL_CATALOG: "{", DEFAULT_MODEL: "a" }), {})).toThrow(/not valid JSON/);
  });
});
