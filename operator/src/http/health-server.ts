import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Registry } from "prom-client";

export interface HealthServerOptions {
  host: string;
  port: number;
  registry: Registry;
  /** Whether this replica can do its job now (a standby that waits for the lease is ready). */
  isReady: () => boolean;
}

export interface HealthServer {
  port: number;
  close(): Promise<void>;
}

/** /metrics for Prometheus, /healthz for liveness, /readyz for readiness. */
export async function startHealthServer(options: HealthServerOptions): Promise<HealthServer> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? "/").split("?")[0];
    if (request.method !== "GET" && request.method !== "HEAD") {
      response.writeHead(405, { allow: "GET, HEAD" }).end();
      return;
    }
    if (path === "/healthz") {
      response.writeHead(200, { "content-type": "text/plain" }).end("ok\n");
    } else if (path === "/readyz") {
      const ready = options.isReady();
      response.writeHead(ready ? 200 : 503, { "content-type": "text/plain" }).end(ready ? "ok\n" : "not ready\n");
    } else if (path === "/metrics") {
      options.registry.metrics().then(
        (text) => response.writeHead(200, { "content-type": options.registry.contentType }).end(text),
        () => response.writeHead(500).end(),
      );
    } else {
      response.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
