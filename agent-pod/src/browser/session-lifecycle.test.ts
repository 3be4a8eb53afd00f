import { readdirSync, readFileSync } from "node:fs";
import type { StorageState } from "@browser-agents/protocol";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BrowserSession } from "./browser-session.js";
import { escapeHtml, startTestSite, type TestSite } from "./test-support/test-site.js";

let site: TestSite;
const sessions: BrowserSession[] = [];

beforeAll(async () => {
  site = await startTestSite();
  site.route("/login", (_request, response) => {
    response.writeHead(200, {
      "content-type": "text/html",
      "set-cookie": "session=abc123; Path=/; Max-Age=3600; HttpOnly; SameSite=Lax",
    });
    response.end(`<title>Logged in</title><script>localStorage.setItem("theme", "dark")</script>`);
  });
  site.route("/whoami", (request, response) => {
    response.writeHead(200, { "content-type": "text/html" });
    response.end(
      `<title>Who am I</title><p>cookie: ${escapeHtml(request.headers.cookie ?? "none")}</p>` +
        `<p id="theme"></p><script>document.getElementById("theme").textContent = "theme: " + localStorage.getItem("theme")</script>`,
    );
  });
});

afterAll(async () => {
  await Promise.all(sessions.map((session) => session.close()));
  await site?.close();
});

async function launch(storageState: StorageState | null): Promise<BrowserSession> {
  const session = await BrowserSession.launch({
    chromiumPath: "/usr/bin/chromium",
    extraFlags: [],
    devtoolsPort: 0,
    devtoolsAddress: "127.0.0.1",
    storageState,
    logger: pino({ level: "silent" }),
  });
  sessions.push(session);
  return session;
}

/** Live (non-zombie) processes in the process group Chromium leads. */
function livingProcessesInGroup(groupId: number): number[] {
  const members: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue;
    }
    // Fields after the parenthesised command: state, ppid, pgrp, ...
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(pgrp) === groupId && state !== "Z") members.push(Number(entry));
  }
  return members;
}

describe("browser session lifecycle", () => {
  let first: BrowserSession;
  beforeAll(async () => {
    first = await launch(null);
  }, 30_000);

  it("exposes the DevTools port it really listens on, for live view", async () => {
    expect(first.devtoolsPort).toBeGreaterThan(0);
    const version = (await (await fetch(`http://127.0.0.1:${first.devtoolsPort}/json/version`)).json()) as {
      Browser: string;
    };
    expect(version.Browser).toMatch(/Chrome/);
  });

  it("carries cookies and localStorage into the next session; close() leaves no process, even a hung one", async () => {
    const signal = new AbortController().signal;
    expect((await first.execute({ name: "navigate", url: `${site.origin}/login` }, signal)).ok).toBe(true);
    const saved = await first.storageState();
    expect(saved.cookies).toContainEqual(
      expect.objectContaining({ name: "session", value: "abc123", domain: "127.0.0.1", httpOnly: true, sameSite: "Lax" }),
    );
    expect(saved.origins).toEqual([{ origin: site.origin, localStorage: [{ name: "theme", value: "dark" }] }]);

    const firstPid = first.pid;
    expect(livingProcessesInGroup(firstPid).length).toBeGreaterThan(1);
    await Promise.all([first.close(), first.close()]);
    expect(livingProcessesInGroup(firstPid)).toEqual([]);
    expect(await first.execute({ name: "wait", seconds: 1 }, signal)).toMatchObject({ ok: false });

    const second = await launch(JSON.parse(JSON.stringify(saved)) as StorageState);
    await second.execute({ name: "navigate", url: `${site.origin}/whoami` }, signal);
    const text = await second.pageText();
    expect(text).toContain("cookie: session=abc123");
    expect(text).toContain("theme: dark");

    // A frozen browser cannot answer Browser.close; close() must kill it after its grace period.
    const secondPid = second.pid;
    process.kill(secondPid, "SIGSTOP");
    await second.close();
    expect(livingProcessesInGroup(secondPid)).toEqual([]);
  }, 20_000);
});
