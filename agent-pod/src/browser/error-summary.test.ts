import { describe, expect, it } from "vitest";
import { describeError } from "./error-summary.js";

describe("describeError", () => {
  it("keeps the headline and the call-log line that says why, without colour codes", () => {
    const playwrightError = new Error(
      "elementHandle.click: Timeout 10000ms exceeded.\nCall log:\n" +
        "\u001b[2m  - attempting click action\u001b[22m\n" +
        "\u001b[2m    - <div>Overlay</div> intercepts pointer events\u001b[22m\n" +
        "\u001b[2m  - retrying click action\u001b[22m\n",
    );
    expect(describeError(playwrightError)).toBe(
      "Timeout 10000ms exceeded. (<div>Overlay</div> intercepts pointer events)",
    );
  });

  it("passes plain messages through", () => {
    expect(describeError(new Error("page.goto: net::ERR_CONNECTION_REFUSED at http://127.0.0.1:9/"))).toBe(
      "net::ERR_CONNECTION_REFUSED at http://127.0.0.1:9/",
    );
  });
});
