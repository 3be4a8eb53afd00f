import { type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import {
  SESSION_COOKIE,
  SITE_PASSWORD,
  SITE_USERNAME,
  SessionStore,
  accountPage,
  loginPage,
} from "./auth-pages.js";
import * as pages from "./demo-pages.js";

export interface TestSite {
  /** e.g. `http://127.0.0.1:40123` (no trailing slash). */
  url: string;
  /** Same pages on another port: a different origin, used by `/frame?crossOrigin=1`. */
  otherOriginUrl: string;
  close(): Promise<void>;
}

const MAX_SLOW_MS = 60_000;

export async function startTestSite(): Promise<TestSite> {
  const sessions = new SessionStore();
  const slowTimers = new Set<NodeJS.Timeout>();
  let otherOriginUrl = "";

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? "/", "http://site.invalid");
    const method = req.method ?? "GET";
    const get = method === "GET" || method === "HEAD";
    const path = url.pathname;

    if (get && path === "/") return html(res, 200, pages.indexPage());
    if (get && path === "/login") return html(res, 200, loginPage());
    if (method === "POST" && path === "/login") {
      const form = new URLSearchParams(await readBody(req));
      if (form.get("username") !== SITE_USERNAME || form.get("password") !== SITE_PASSWORD) {
        return html(res, 401, loginPage("Wrong user name or password"));
      }
      const token = sessions.create(SITE_USERNAME);
      res.setHeader("set-cookie", `${SESSION_COOKIE}=${token}; HttpOnly; Path=/; SameSite=Lax`);
      return redirect(res, "/account?welcome=1");
    }
    if (get && path === "/account") {
      const user = sessions.userOf(req.headers.cookie);
      return user === undefined ? redirect(res, "/login") : html(res, 200, accountPage(user));
    }
    if (get && path === "/logout") {
      sessions.remove(req.headers.cookie);
      res.setHeader("set-cookie", `${SESSION_COOKIE}=; HttpOnly; Path=/; Max-Age=0`);
      return redirect(res, "/login");
    }
    if (get && path === "/products") {
      const n = Number(url.searchParams.get("page") ?? "1");
      if (!Number.isInteger(n) || n < 1 || n > pages.PRODUCT_PAGES) return html(res, 404, pages.notFoundPage(req.url ?? path));
      return html(res, 200, pages.productsPage(n));
    }
    if (get && path === "/order") return html(res, 200, pages.orderPage());
    if (method === "POST" && path === "/order") {
      const form = new URLSearchParams(await readBody(req));
      return html(res, 200, pages.orderConfirmationPage(form.get("size") ?? ""));
    }
    if (get && path === "/frame") {
      const crossOrigin = url.searchParams.get("crossOrigin") === "1";
      return html(res, 200, pages.framePage(crossOrigin ? otherOriginUrl : ""));
    }
    if (get && path === "/frame/inner") return html(res, 200, pages.frameInnerPage());
    if (get && path === "/shadow") return html(res, 200, pages.shadowPage());
    if (get && path === "/new-tab") return html(res, 200, pages.newTabPage());
    if (get && path === "/tab-target") return html(res, 200, pages.tabTargetPage());
    if (get && path === "/long") return html(res, 200, pages.longPage());
    if (get && path === "/echo") return html(res, 200, pages.echoPage());
    if (get && path === "/slow") {
      const ms = Math.min(Math.max(Number(url.searchParams.get("ms") ?? "1000") || 0, 0), MAX_SLOW_MS);
      const timer = setTimeout(() => {
        slowTimers.delete(timer);
        html(res, 200, pages.slowPage(ms));
      }, ms);
      slowTimers.add(timer);
      res.on("close", () => {
        clearTimeout(timer);
        slowTimers.delete(timer);
      });
      return;
    }
    const status = /^\/status\/(\d{3})$/.exec(path);
    if (get && status) {
      const code = Number(status[1]);
      if (code >= 200 && code <= 599) return html(res, code, pages.statusPage(code));
    }
    return html(res, 404, pages.notFoundPage(path));
  };

  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    route(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end(String(error));
    });
  };
  const main = await listen(createServer(handler));
  const other = await listen(createServer(handler));
  otherOriginUrl = other.url;

  return {
    url: main.url,
    otherOriginUrl,
    close: async () => {
      for (const timer of slowTimers) clearTimeout(timer);
      slowTimers.clear();
      await Promise.all([closeServer(main.server), closeServer(other.server)]);
    },
  };
}

function html(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
  res.end(body);
}

function redirect(res: ServerResponse, location: string): void {
  res.writeHead(303, { location, "cache-control": "no-store" });
  res.end();
}

async function listen(server: Server): Promise<{ server: Server; url: string }> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}` };
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
