import { ApiError, badRequest, methodNotAllowed, unsupportedMediaType } from "../store/api-error.js";
import type { KubeObject } from "../store/kube-object.js";
import type { ObjectStore } from "../store/object-store.js";
import type { ResourceType } from "../store/resource-type.js";
import { combineFilters, parseFieldSelector, parseLabelSelector } from "../store/selectors.js";
import { ACCEPTED_PATCH_TYPES, deleteOptions, listOptions, patchKind } from "./request-options.js";
import type { WatchHub } from "./watch-hub.js";
import type { ServerResponse } from "node:http";

export type PodLogSource = (namespace: string, name: string) => string | undefined;

export interface ResourceRequest {
  method: string;
  query: URLSearchParams;
  contentType: string | undefined;
  body: unknown;
  response: ServerResponse;
}

export type Reply = { kind: "json"; code: number; body: unknown } | { kind: "text"; code: number; body: string } | { kind: "streaming" };

export interface ResourceHandlerContext {
  store: ObjectStore;
  watches: WatchHub;
  podLogs: () => PodLogSource | undefined;
}

interface ContinueToken {
  after: string;
}

function itemKey(object: KubeObject): string {
  return `${object.metadata.namespace ?? ""}/${object.metadata.name ?? ""}`;
}

function decodeContinue(token: string): ContinueToken {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(token, "base64url").toString("utf8"));
    if (typeof parsed === "object" && parsed !== null && "after" in parsed && typeof parsed.after === "string") return { after: parsed.after };
  } catch {
    // fall through to the error below
  }
  throw badRequest("continue key is not valid");
}

/** Built-in list items carry no kind/apiVersion on the wire; custom resource items do. */
function listItem(type: ResourceType, object: KubeObject): KubeObject {
  if (type.custom) return object;
  const { apiVersion: _apiVersion, kind: _kind, ...rest } = object;
  return rest as KubeObject;
}

export function handleCollection(context: ResourceHandlerContext, type: ResourceType, namespace: string | undefined, request: ResourceRequest): Reply {
  const { store } = context;
  const options = listOptions(request.query);
  const filter = combineFilters(parseLabelSelector(options.labelSelector), parseFieldSelector(options.fieldSelector));
  switch (request.method) {
    case "GET": {
      if (options.watch) {
        context.watches.open(
          {
            type,
            namespace,
            resourceVersion: options.resourceVersion,
            filter,
            allowBookmarks: options.allowWatchBookmarks,
            timeoutSeconds: options.timeoutSeconds,
          },
          request.response,
        );
        return { kind: "streaming" };
      }
      let items = store.list(type, namespace, filter);
      if (options.continueToken) {
        const { after } = decodeContinue(options.continueToken);
        items = items.filter((item) => itemKey(item) > after);
      }
      const metadata: Record<string, unknown> = { resourceVersion: String(store.resourceVersion) };
      if (options.limit !== undefined && options.limit > 0 && items.length > options.limit) {
        const remaining = items.length - options.limit;
        items = items.slice(0, options.limit);
        const last = items[items.length - 1];
        if (last) metadata.continue = Buffer.from(JSON.stringify({ after: itemKey(last) })).toString("base64url");
        metadata.remainingItemCount = remaining;
      }
      return {
        kind: "json",
        code: 200,
        body: { kind: type.listKind, apiVersion: type.apiVersion, metadata, items: items.map((item) => listItem(type, item)) },
      };
    }
    case "POST":
      if (namespace === undefined) throw methodNotAllowed(`create of ${type.plural} needs a namespace in the path`);
      return { kind: "json", code: 201, body: store.create(type, namespace, request.body) };
    case "DELETE": {
      const deletion = deleteOptions(request.query, request.body);
      const deleted = store.list(type, namespace, filter).map((item) => {
        const result = store.delete(type, item.metadata.namespace ?? "", item.metadata.name ?? "", deletion);
        return listItem(type, result.object);
      });
      return { kind: "json", code: 200, body: { kind: type.listKind, apiVersion: type.apiVersion, metadata: {}, items: deleted } };
    }
    default:
      throw methodNotAllowed(`the server does not allow this method on the requested resource`);
  }
}

export function handleObject(
  context: ResourceHandlerContext,
  type: ResourceType,
  namespace: string,
  name: string,
  subresource: string | undefined,
  request: ResourceRequest,
): Reply {
  const { store } = context;
  if (subresource === "log" && type.storageKey === "pods" && request.method === "GET") {
    store.get(type, namespace, name);
    return { kind: "text", code: 200, body: context.podLogs()?.(namespace, name) ?? "" };
  }
  if (subresource !== undefined && !(subresource === "status" && type.statusSubresource)) {
    throw new ApiError(404, "NotFound", "the server could not find the requested resource", { name, kind: type.plural });
  }
  const writeOptions = subresource === "status" ? { subresource: "status" as const } : {};
  switch (request.method) {
    case "GET":
      return { kind: "json", code: 200, body: store.get(type, namespace, name) };
    case "PUT":
      return { kind: "json", code: 200, body: store.update(type, namespace, name, request.body, writeOptions) };
    case "PATCH": {
      const kind = patchKind(request.contentType);
      if (!kind) throw unsupportedMediaType(request.contentType ?? "", ACCEPTED_PATCH_TYPES);
      const existedBefore = store.find(type, namespace, name) !== undefined;
      const fieldManager = request.query.get("fieldManager") ?? undefined;
      const patched = store.patch(type, namespace, name, kind, request.body, { ...writeOptions, ...(fieldManager ? { fieldManager } : {}) });
      return { kind: "json", code: existedBefore ? 200 : 201, body: patched };
    }
    case "DELETE": {
      if (subresource) throw methodNotAllowed("the server does not allow this method on the requested resource");
      const result = store.delete(type, namespace, name, deleteOptions(request.query, request.body));
      // 202 while the object lingers (finalizers, graceful pod termination), as the real server answers.
      const code = result.removed ? 200 : 202;
      if (type.returnDeletedObject || !result.removed) return { kind: "json", code, body: result.object };
      return {
        kind: "json",
        code,
        body: {
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Success",
          details: { name, ...(type.group ? { group: type.group } : {}), kind: type.plural, uid: result.object.metadata.uid },
        },
      };
    }
    default:
      throw methodNotAllowed("the server does not allow this method on the requested resource");
  }
}
