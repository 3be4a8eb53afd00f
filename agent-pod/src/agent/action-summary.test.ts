import { describe, expect, it } from "vitest";
import { describeAction, elementsByIndex } from "./action-summary.js";

const elementsText = [
  '[0]<a href="/">Home</a>',
  '[1]<input type="text" name="username" placeholder="User name">',
  '[2]<input type="password" name="password">',
  '[3]<button type="submit">Sign in</button>',
  "  iframe http://127.0.0.1:4321/frame:",
  "  [4]<button>Inside frame</button>",
].join("\n");

describe("describeAction", () => {
  const elements = elementsByIndex(elementsText);

  it("names the element by its text, or by a naming attribute", () => {
    expect(describeAction({ name: "click", index: 3 }, elements)).toBe("Clicking element #3: Sign in");
    expect(describeAction({ name: "click", index: 4 }, elements)).toBe("Clicking element #4: Inside frame");
    expect(describeAction({ name: "type", index: 1, text: "alice", clear: true }, elements)).toBe(
      'Typing "alice" into element #1: User name',
    );
    expect(describeAction({ name: "type", index: 2, text: "<secret>pw</secret>", clear: true }, elements)).toBe(
      'Typing "<secret>pw</secret>" into element #2: password',
    );
  });

  it("still describes an index the page does not have", () => {
    expect(describeAction({ name: "click", index: 99 }, elements)).toBe("Clicking element #99");
  });

  it("describes actions without elements", () => {
    expect(describeAction({ name: "navigate", url: "http://127.0.0.1/x" }, elements)).toBe("Navigating to http://127.0.0.1/x");
    expect(describeAction({ name: "scroll", direction: "down", pages: 2 }, elements)).toBe("Scrolling down 2 pages");
  });
});
