import {
  AgentSessionSchema,
  agentSessionCollectionPath,
  agentSessionCoordinates,
  type AgentSession,
} from "@browser-agents/protocol";
import { PatchStrategy, setHeaderOptions, type CustomObjectsApi } from "@kubernetes/client-node";
import { PermanentError } from "../queue/reconcile-errors.js";
import { readOrNull } from "./api-errors.js";
import type { ListResult } from "./resilient-watch.js";

const mergePatch = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);

/** AgentSession reads and writes, each answer parsed at the boundary. */
export class AgentSessionClient {
  private readonly coordinates: { group: string; version: string; plural: string; namespace: string };

  constructor(
    private readonly api: CustomObjectsApi,
    readonly namespace: string,
  ) {
    this.coordinates = agentSessionCoordinates(namespace);
  }

  /** The collection's path, for watches. */
  get path(): string {
    return agentSessionCollectionPath(this.namespace);
  }

  async get(name: string): Promise<AgentSession | null> {
    const raw: unknown = await readOrNull(() => this.api.getNamespacedCustomObject({ ...this.coordinates, name }));
    return raw === null ? null : parseAgentSession(raw);
  }

  async list(): Promise<ListResult> {
    const raw = (await this.api.listNamespacedCustomObject({ ...this.coordinates })) as {
      items?: unknown[];
      metadata?: { resourceVersion?: string };
    };
    return { items: raw.items ?? [], resourceVersion: raw.metadata?.resourceVersion ?? "" };
  }

  /** A merge patch of the main resource; with a resourceVersion in it, a 409 means someone wrote first. */
  async patch(name: string, body: Record<string, unknown>): Promise<AgentSession> {
    const raw: unknown = await this.api.patchNamespacedCustomObject({ ...this.coordinates, name, body }, mergePatch);
    return parseAgentSession(raw);
  }

  /** A merge patch of the status subresource; spec and metadata are ignored there. */
  async patchStatus(name: string, body: Record<string, unknown>): Promise<AgentSession> {
    const raw: unknown = await this.api.patchNamespacedCustomObjectStatus({ ...this.coordinates, name, body }, mergePatch);
    return parseAgentSession(raw);
  }
}

export function parseAgentSession(raw: unknown): AgentSession {
  const parsed = AgentSessionSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const where = parsed.error.issues.map((issue) => issue.path.join(".")).join(", ");
  throw new PermanentError(`malformed AgentSession (${where})`);
}
