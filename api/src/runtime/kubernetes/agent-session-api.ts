import {
  AgentSessionSchema,
  agentSessionCollectionPath,
  agentSessionCoordinates,
  type AgentSession,
  type DesiredState,
} from "@browser-agents/protocol";
import {
  PatchStrategy,
  setHeaderOptions,
  type CustomObjectsApi,
  type KubernetesListObject,
  type KubernetesObject,
} from "@kubernetes/client-node";

const mergePatch = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);

/** HTTP status of a failed client-node call (ApiException.code, or a watch error's statusCode). */
export function httpStatusOf(error: unknown): number | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const { code, statusCode } = error as { code?: unknown; statusCode?: unknown };
  if (typeof code === "number") return code;
  return typeof statusCode === "number" ? statusCode : undefined;
}

/** The API's few AgentSession calls. It writes spec and metadata only: status is the operator's. */
export class AgentSessionApi {
  private readonly coordinates: { group: string; version: string; plural: string; namespace: string };

  constructor(
    private readonly api: CustomObjectsApi,
    readonly namespace: string,
  ) {
    this.coordinates = agentSessionCoordinates(namespace);
  }

  get path(): string {
    return agentSessionCollectionPath(this.namespace);
  }

  /** Creates it; false when one of that name exists already (409). */
  async create(session: AgentSession): Promise<boolean> {
    try {
      await this.api.createNamespacedCustomObject({ ...this.coordinates, body: session });
      return true;
    } catch (error) {
      if (httpStatusOf(error) === 409) return false;
      throw error;
    }
  }

  /** Sets desiredState; false when there is no such AgentSession (404). */
  async setDesiredState(name: string, desiredState: DesiredState): Promise<boolean> {
    try {
      await this.api.patchNamespacedCustomObject({ ...this.coordinates, name, body: { spec: { desiredState } } }, mergePatch);
      return true;
    } catch (error) {
      if (httpStatusOf(error) === 404) return false;
      throw error;
    }
  }

  /** Deletes it; the operator's finalizer holds it until the pod and secret are gone. 404 is success. */
  async delete(name: string): Promise<void> {
    try {
      await this.api.deleteNamespacedCustomObject({ ...this.coordinates, name });
    } catch (error) {
      if (httpStatusOf(error) !== 404) throw error;
    }
  }

  /** Every AgentSession of the namespace; objects that do not parse are skipped. */
  async list(): Promise<AgentSession[]> {
    const raw = await this.listRaw();
    return raw.items.flatMap((item) => {
      const parsed = AgentSessionSchema.safeParse(item);
      return parsed.success ? [parsed.data] : [];
    });
  }

  /** The list as the server sent it, for client-node's informer (which parses nothing). */
  async listRaw(): Promise<KubernetesListObject<KubernetesObject>> {
    const raw = (await this.api.listNamespacedCustomObject({ ...this.coordinates })) as {
      items?: KubernetesObject[];
      metadata?: { resourceVersion?: string };
    };
    return { items: raw.items ?? [], metadata: { resourceVersion: raw.metadata?.resourceVersion ?? "" } };
  }
}
