import { CoordinationV1Api, CoreV1Api, CustomObjectsApi, Watch, type KubeConfig } from "@kubernetes/client-node";

export interface KubeClients {
  core: CoreV1Api;
  customObjects: CustomObjectsApi;
  coordination: CoordinationV1Api;
  watch: Watch;
}

export function createKubeClients(kubeConfig: KubeConfig): KubeClients {
  return {
    core: kubeConfig.makeApiClient(CoreV1Api),
    customObjects: kubeConfig.makeApiClient(CustomObjectsApi),
    coordination: kubeConfig.makeApiClient(CoordinationV1Api),
    watch: new Watch(kubeConfig),
  };
}
