import { describe, expect, it } from "vitest";
import { InvalidOutputSchemaError, compileOutputSchema, outputSchemaForTool } from "./output-schema.js";

describe("compileOutputSchema", () => {
  it("validates with draft 2020-12 when the schema says so, and rejects extra properties", () => {
    const validator = compileOutputSchema({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: { title: { type: "string" }, price: { type: "number" } },
      required: ["title", "price"],
      additionalProperties: false,
    });
    expect(validator.check({ title: "Book", price: 12.5 })).toEqual({ ok: true });
    const extra = validator.check({ title: "Book", price: 12.5, note: "x" });
    expect(extra).toEqual({ ok: false, errors: expect.stringContaining('must NOT have additional properties ("note")') });
    const missing = validator.check({ title: 3 });
    expect(missing.ok).toBe(false);
    expect(!missing.ok && missing.errors).toMatch(/output\/title must be string/);
    expect(!missing.ok && missing.errors).toMatch(/must have required property 'price'/);
  });

  it("accepts null through a nullable anyOf, and checks formats", () => {
    const validator = compileOutputSchema({
      type: "object",
      properties: { email: { anyOf: [{ type: "string", format: "email" }, { type: "null" }] } },
      required: ["email"],
      additionalProperties: false,
    });
    expect(validator.check({ email: null }).ok).toBe(true);
    expect(validator.check({ email: "a@example.com" }).ok).toBe(true);
    expect(validator.check({ email: "not an email" }).ok).toBe(false);
  });

  it("accepts draft-07 schemas with definitions and tuple items", () => {
    const validator = compileOutputSchema({
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      definitions: { name: { type: "string", minLength: 1 } },
      properties: {
        who: { $ref: "#/definitions/name" },
        pair: { type: "array", items: [{ type: "string" }, { type: "integer" }], additionalItems: false },
      },
    });
    expect(validator.check({ who: "Ada", pair: ["a", 1] }).ok).toBe(true);
    expect(validator.check({ who: "" }).ok).toBe(false);
    expect(validator.check({ pair: ["a", 1, 2] }).ok).toBe(false);
    expect(validator.check({ pair: [1, "a"] }).ok).toBe(false);
  });

  it("refuses a schema that is not JSON Schema", () => {
    expect(() => compileOutputSchema({ type: "no-such-type" })).toThrow(InvalidOutputSchemaError);
  });
});

describe("outputSchemaForTool", () => {
  it("drops the draft marker and points local references inside the output parameter", () => {
    const schema = outputSchemaForTool({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      $defs: { item: { type: "string" } },
      type: "array",
      items: { $ref: "#/$defs/item" },
    });
    expect(schema).toEqual({
      $defs: { item: { type: "string" } },
      type: "array",
      items: { $ref: "#/properties/output/$defs/item" },
    });
  });
});
