import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** An HTML body served with 200, or a handler for anything else (status codes, headers, POST). */
export type Route = string | ((request: IncomingMessage, response: ServerResponse, body: string) => void);

export interface TestSite {
  /** e.g. http://127.0.0.1:41234 */
  origin: string;
  /** Adds or replaces the route for an exact pathname. */
  route(pathname: string, route: Route): void;
  close(): Promise<void>;
}

/** A tiny HTTP server on 127.0.0.1 with an OS-chosen port; a second one is a second origin. */
export async function startTestSite(): Promise<TestSite> {
  const routes = new Map<string, Route>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const route = routes.get(new URL(request.url ?? "/", "http://127.0.0.1").pathname);
      if (route === undefined) {
        response.writeHead(404, { "content-type": "text/html" }).end("<title>Not found</title>Not found");
      } else if (typeof route === "string") {
        response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(route);
      } else {
        route(request, response, Buffer.concat(chunks).toString("utf8"));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    route: (pathname, route) => routes.set(pathname, route),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}
