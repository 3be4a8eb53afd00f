import { describe, expect, it } from "vitest";
import { Redactor, UnknownSecretError, secretPlaceholder } from "./redactor.js";

describe("Redactor", () => {
  const redactor = new Redactor({ password: "hunter2", pin: "42", user: "alice@example.com" });

  it("replaces every occurrence of each secret value with its placeholder", () => {
    expect(redactor.redact("login alice@example.com / hunter2, again hunter2")).toBe(
      "login <secret>user</secret> / <secret>password</secret>, again <secret>password</secret>",
    );
  });

  it("replaces a secret that contains another one whole", () => {
    const nested = new Redactor({ short: "abc", long: "xxabcxx" });
    expect(nested.redact("xxabcxx and abc")).toBe("<secret>long</secret> and <secret>short</secret>");
  });

  it("never mangles a placeholder it has just written", () => {
    const tricky = new Redactor({ a: "secret", b: "cret" });
    expect(tricky.redact("my secret")).toBe("my <secret>a</secret>");
  });

  it("treats values as literal text, not patterns", () => {
    const regexy = new Redactor({ p: "a.b*(c)" });
    expect(regexy.redact("aXb a.b*(c)")).toBe("aXb <secret>p</secret>");
  });

  it("redacts strings inside JSON values, keys included", () => {
    expect(redactor.redactValue({ login: "alice@example.com", list: ["hunter2", 42, null], hunter2: true })).toEqual({
      login: "<secret>user</secret>",
      list: ["<secret>password</secret>", 42, null],
      "<secret>password</secret>": true,
    });
  });

  it("redacts values that appear JSON-escaped in a log line", () => {
    const quoted = new Redactor({ q: 'pa"ss\\word' });
    const line = JSON.stringify({ msg: 'typed pa"ss\\word' });
    const redacted = quoted.redactJsonText(line);
    expect(redacted).not.toContain(JSON.stringify('pa"ss\\word').slice(1, -1));
    expect(JSON.parse(redacted)).toEqual({ msg: "typed <secret>q</secret>" });
  });

  it("hides extra values such as the session token", () => {
    const withToken = new Redactor(null, [{ value: "tok-123", replacement: "[agent-token]" }]);
    expect(withToken.redact("Bearer tok-123")).toBe("Bearer [agent-token]");
    expect(withToken.secretKeys).toEqual([]);
  });

  it("puts values back into placeholders and rejects unknown keys", () => {
    expect(redactor.substitute(`${secretPlaceholder("password")}!`)).toBe("hunter2!");
    expect(() => redactor.substitute("<secret>nope</secret>")).toThrow(UnknownSecretError);
    expect(() => redactor.substitute("<secret>nope</secret>")).toThrow(/<secret>password<\/secret>/);
  });

  it("ignores empty secret values instead of redacting everything", () => {
    expect(new Redactor({ empty: "" }).redact("text")).toBe("text");
  });
});
