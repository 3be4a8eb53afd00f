import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import YAML from "yaml";
import { ApiError, badRequest, unauthorized } from "../store/api-error.js";
import type { ObjectStore } from "../store/object-store.js";
import { coreVersions, group, groupList, resourceList, versionInfo } from "./discovery.js";
import { RequestFaults, type RequestIdentity, type Verb } from "./request-faults.js";
import { handleCollection, handleObject, type PodLogSource, type Reply, type ResourceRequest } from "./resource-handler.js";
import { parseRoute, type Route } from "./route.js";
import type { WatchHub } from "./watch-hub.js";

export interface RequestRecord {
  method: string;
  path: string;
  query: string;
  verb: Verb | undefined;
  resource: string | undefined;
  namespace: string | undefined;
  name: string | undefined;
  subresource: string | undefined;
  contentType: string | undefined;
  code: number;
}

const MAX_RECORDS = 10_000;

function identify(route: Route, method: string, query: URLSearchParams): RequestIdentity | undefined {
  if (route.kind !== "collection" && route.kind !== "object") return undefined;
  const isWatch = query.get("watch") === "true" || query.get("watch") === "1";
  const verbs: Record<string, Verb> =
    route.kind === "collection"
      ? { GET: isWatch ? "watch" : "list", POST: "create", DELETE: "deletecollection" }
      : { GET: "get", PUT: "update", PATCH: "patch", DELETE: "delete" };
  const verb = verbs[method];
  if (!verb) return undefined;
  return {
    verb,
    resource: route.type.storageKey,
    plural: route.type.plural,
    namespace: route.namespace,
    name: route.kind === "object" ? route.name : undefined,
    subresource: route.kind === "object" ? route.subresource : undefined,
  };
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function parseBody(text: string, contentType: string | undefined): unknown {
  if (text.trim() === "") return undefined;
  try {
    if ((contentType ?? "").includes("yaml")) return YAML.parse(text) as unknown;
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw badRequest(`the request body could not be decoded: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function sendJson(response: ServerResponse, code: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(code, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(text) });
  response.end(text);
}

/** The HTTP face of the fake: authentication, routing, faults, and the request log. */
export class ApiServer {
  readonly requests: RequestRecord[] = [];
  readonly faults = new RequestFaults();
  podLogSource: PodLogSource | undefined;
  private readonly server: Server;
  private address = "";

  constructor(
    private readonly store: ObjectStore,
    private readonly watches: WatchHub,
    private readonly token: string,
  ) {
    this.server = createServer((request, response) => {
      this.handle(request, response).catch((error: unknown) => {
        if (!response.headersSent) sendJson(response, 500, new ApiError(500, "InternalError", String(error)).toStatus());
        else response.destroy();
      });
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(0, "127.0.0.1", () => resolve());
    });
    const { port } = this.server.address() as AddressInfo;
    this.address = `127.0.0.1:${port}`;
    return `http://${this.address}`;
  }

  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    await closed;
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", "http://fake-kube");
    const method = request.method ?? "GET";
    const contentType = request.headers["content-type"];
    const route = parseRoute(url.pathname, this.store.registry);
    const identity = identify(route, method, url.searchParams);
    const record: RequestRecord = {
      method,
      path: url.pathname,
      query: url.search,
      verb: identity?.verb,
      resource: identity?.resource,
      namespace: identity?.namespace,
      name: identity?.name,
      subresource: identity?.subresource,
      contentType,
      code: 0,
    };
    if (this.requests.length >= MAX_RECORDS) this.requests.shift();
    this.requests.push(record);

    let reply: Reply;
    try {
      const text = method === "GET" ? "" : await readBody(request);
      if (request.headers.authorization !== `Bearer ${this.token}`) throw unauthorized();
      const fault = identity ? this.faults.take(identity) : undefined;
      if (fault) throw fault;
      reply = this.dispatch(route, { method, query: url.searchParams, contentType, body: parseBody(text, contentType), response });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      reply = { kind: "json", code: error.code, body: error.toStatus() };
    }
    record.code = reply.kind === "streaming" ? 200 : reply.code;
    if (reply.kind === "json") sendJson(response, reply.code, reply.body);
    else if (reply.kind === "text") {
      response.writeHead(reply.code, { "Content-Type": "text/plain" });
      response.end(reply.body);
    }
  }

  private dispatch(route: Route, request: ResourceRequest): Reply {
    const json = (body: unknown): Reply => ({ kind: "json", code: 200, body });
    const missing = (): never => {
      throw new ApiError(404, "NotFound", "the server could not find the requested resource");
    };
    const context = { store: this.store, watches: this.watches, podLogs: () => this.podLogSource };
    switch (route.kind) {
      case "version":
        return json(versionInfo());
      case "health":
        return { kind: "text", code: 200, body: "ok" };
      case "coreVersions":
        return json(coreVersions(this.address));
      case "groupList":
        return json(groupList(this.store.registry));
      case "group":
        return json(group(this.store.registry, route.group) ?? missing());
      case "resourceList":
        return json(resourceList(this.store.registry, route.group, route.version) ?? missing());
      case "namespaceList":
        return json({ kind: "NamespaceList", apiVersion: "v1", metadata: { resourceVersion: String(this.store.resourceVersion) }, items: [] });
      case "namespace":
        // Every namespace exists in the fake.
        return json({ kind: "Namespace", apiVersion: "v1", metadata: { name: route.name }, spec: { finalizers: ["kubernetes"] }, status: { phase: "Active" } });
      case "collection":
        return handleCollection(context, route.type, route.namespace, request);
      case "object":
        return handleObject(context, route.type, route.namespace, route.name, route.subresource, request);
      case "unknown":
        return missing();
    }
  }
}
