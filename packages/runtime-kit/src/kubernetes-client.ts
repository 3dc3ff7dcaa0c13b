import { KubeConfig, KubernetesObjectApi } from '@kubernetes/client-node';
import { kubernetesApiFromObjectApi, type KubernetesApi } from './kubernetes-provisioner.js';

/**
 * The default Kubernetes API of this plugin: `@kubernetes/client-node` with the given KubeConfig, or the
 * default one (in-cluster service account or `~/.kube/config`), loaded on first use.
 */
export function clientNodeKubernetesApi(kubeConfig?: KubeConfig): KubernetesApi {
  let config = kubeConfig;
  if (!config) {
    config = new KubeConfig();
    config.loadFromDefault();
  }
  return kubernetesApiFromObjectApi(KubernetesObjectApi.makeApiClient(config));
}
