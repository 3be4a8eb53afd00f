export { startFakeKube, readCrdFile, type FakeKube, type FakeKubeOptions, type WaitForOptions } from "./fake-kube.js";
export {
  startFakeKubelet,
  type FakeKubelet,
  type FakeKubeletOptions,
  type ImageConfig,
  type RunningProcess,
} from "./kubelet/fake-kubelet.js";
export type { RequestRecord } from "./http/api-server.js";
export type { RequestFault, Verb } from "./http/request-faults.js";
export type { KubeObject } from "./store/kube-object.js";
export type { DeleteOptions, ObjectStore, PatchKind, PropagationPolicy } from "./store/object-store.js";
export type { StoreEvent } from "./store/event-history.js";
