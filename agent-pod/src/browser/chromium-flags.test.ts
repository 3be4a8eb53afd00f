import { describe, expect, it } from "vitest";
import { chromiumFlags, DEFAULT_CHROMIUM_FLAGS } from "./chromium-flags.js";

describe("chromiumFlags", () => {
  it("starts with the headless defaults and keeps extra flags", () => {
    const flags = chromiumFlags(["--lang=de-DE"]);
    expect(flags.slice(0, DEFAULT_CHROMIUM_FLAGS.length)).toEqual(DEFAULT_CHROMIUM_FLAGS);
    expect(flags).toContain("--lang=de-DE");
  });

  it("merges feature lists, since Chromium would honour only the last flag of each", () => {
    const flags = chromiumFlags(["--disable-features=Translate", "--enable-features=StrictOriginIsolation,Foo"]);
    const disabled = flags.filter((flag) => flag.startsWith("--disable-features="));
    expect(disabled).toHaveLength(1);
    expect(disabled[0]).toMatch(/PaintHolding.*,Translate$/);
    expect(flags.filter((flag) => flag.startsWith("--enable-features="))).toEqual([
      "--enable-features=StrictOriginIsolation,Foo",
    ]);
  });
});
