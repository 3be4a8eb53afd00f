import { describe, expect, it } from "vitest";
import { LoopDetector } from "./loop-detector.js";

const click9 = { name: "click", index: 9 };
const scroll = { name: "scroll", direction: "down", pages: 1 };

describe("LoopDetector", () => {
  it("warns, then gives up, when the same action keeps failing", () => {
    const detector = new LoopDetector({ warnAfter: 3, giveUpAfter: 5, window: 20 });
    const verdicts = [1, 2, 3, 4, 5].map(() => detector.record(click9, false));
    expect(verdicts).toEqual(["ok", "ok", "warn", "warn", "give_up"]);
  });

  it("sees the repetition through other actions in between and argument order", () => {
    const detector = new LoopDetector({ warnAfter: 3, giveUpAfter: 5, window: 20 });
    detector.record(click9, false);
    detector.record(scroll, true);
    detector.record({ index: 9, name: "click" }, false);
    detector.record(scroll, true);
    expect(detector.record(click9, false)).toBe("warn");
  });

  it("does not count different failing actions together", () => {
    const detector = new LoopDetector({ warnAfter: 3, giveUpAfter: 5, window: 20 });
    for (let index = 0; index < 6; index += 1) {
      expect(detector.record({ name: "click", index }, false)).toBe("ok");
    }
  });

  it("forgives an action once it succeeds", () => {
    const detector = new LoopDetector({ warnAfter: 3, giveUpAfter: 5, window: 20 });
    detector.record(click9, false);
    detector.record(click9, false);
    expect(detector.record(click9, true)).toBe("ok");
    expect(detector.record(click9, false)).toBe("ok");
  });

  it("forgets failures that left the window", () => {
    const detector = new LoopDetector({ warnAfter: 2, giveUpAfter: 3, window: 3 });
    detector.record(click9, false);
    detector.record(scroll, true);
    detector.record(scroll, true);
    expect(detector.record(click9, false)).toBe("ok");
  });
});
