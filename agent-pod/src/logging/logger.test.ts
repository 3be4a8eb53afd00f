import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { Redactor } from "../secrets/redactor.js";
import { createLogger } from "./logger.js";

describe("createLogger", () => {
  it("writes JSON lines with secrets and the token replaced, whatever field holds them", () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        lines.push(chunk.toString());
        callback();
      },
    });
    let redactor = new Redactor(null, [{ value: "tok-abc", replacement: "[agent-token]" }]);
    const logger = createLogger({ level: "info", redactor: () => redactor, destination });

    logger.info({ headers: { authorization: "Bearer tok-abc" } }, "calling the API");
    redactor = new Redactor({ password: "hunter2" }, [{ value: "tok-abc", replacement: "[agent-token]" }]);
    logger.warn({ action: { text: "hunter2" } }, "typed hunter2");

    const [first, second] = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(first).toMatchObject({ msg: "calling the API", headers: { authorization: "Bearer [agent-token]" } });
    expect(second).toMatchObject({ msg: "typed <secret>password</secret>", action: { text: "<secret>password</secret>" } });
    expect(lines.join("")).not.toMatch(/tok-abc|hunter2/);
  });
});
