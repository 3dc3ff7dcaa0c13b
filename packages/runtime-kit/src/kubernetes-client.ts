import { createRequire } from 'node:module';
import type * as ClientNode from '@kubernetes/client-node';
import type { KubeConfig } from '@kubernetes/client-node';
import { kubernetesApiFromObjectApi, type KubernetesApi } from './kubernetes-provisioner.js';

/**
 * The default Kubernetes API of this plugin: `@kubernetes/client-node` with the given KubeConfig, or the
 * default one (in-cluster service account or `~/.kube/config`), loaded on first use.
 */
export function clientNodeKubernetesApi(kubeConfig?: KubeConfig): KubernetesApi {
  // Required here, not imported at the top: the client is large (hundreds of modules, a second or more to
  // load), and a gateway that provisions no replica on Kubernetes never calls this.
  const { KubeConfig, KubernetesObjectApi } = createRequire(import.meta.url)('@kubernetes/client-node') as typeof ClientNode;
  let config = kubeConfig;
  if (!config) {
    config = new KubeConfig();
    config.loadFromDefault();
  }
  return kubernetesApiFromObjectApi(KubernetesObjectApi.makeApiClient(config));
}
