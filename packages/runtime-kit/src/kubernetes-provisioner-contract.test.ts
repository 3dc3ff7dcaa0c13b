import { describeProvisionerContract, testAcceleratorTypes, testLaunchProfile } from '@berth/core/testing';
import type { KubernetesManifest } from './kubernetes-manifests.js';
import type { KubernetesApi } from './kubernetes-provisioner.js';
import { defineKubernetesVendorRuntime } from './vendor-runtime.js';

/**
 * A fake Kubernetes API in memory: keeps applied objects, and answers every Deployment with one scheduled,
 * ready Pod carrying the Deployment's template labels (as a cluster with free capacity would).
 */
function fakeKubernetes(): KubernetesApi {
  const objects = new Map<string, KubernetesManifest>();
  const key = (kind: string, namespace: string | undefined, name: string) => `${kind}/${namespace ?? ''}/${name}`;
  return {
    async apply(_ctx, manifest) {
      objects.set(key(manifest.kind, manifest.metadata.namespace, manifest.metadata.name), manifest);
    },
    async delete(_ctx, ref) {
      objects.delete(key(ref.kind, ref.namespace, ref.name));
    },
    async list(_ctx, query) {
      const inNamespace = [...objects.values()].filter((o) => o.metadata.namespace === query.namespace);
      if (query.kind !== 'Pod') return inNamespace.filter((o) => o.kind === query.kind);
      return inNamespace
        .filter((o) => o.kind === 'Deployment')
        .map((deployment) => {
          const template = (deployment.spec as { template: { metadata: { labels: Record<string, string> } } }).template;
          return {
            apiVersion: 'v1',
            kind: 'Pod',
            metadata: { name: `${deployment.metadata.name}-pod`, namespace: query.namespace, labels: template.metadata.labels },
            status: { phase: 'Running', conditions: [{ type: 'PodScheduled', status: 'True' }, { type: 'Ready', status: 'True' }] },
          };
        });
    },
  };
}

const { create } = defineKubernetesVendorRuntime({ id: 'test', vendor: 'test', acceleratorTypes: testAcceleratorTypes, launch: testLaunchProfile });

describeProvisionerContract('kubernetes (fake API)', async () => ({
  provisioner: create({ provisioner: { kind: 'kubernetes', api: fakeKubernetes(), pollIntervalMs: 10 } }).provisioner,
  spec: { baseModel: 'accounts/a/models/m', acceleratorType: testAcceleratorTypes[0]!.type, acceleratorCount: 1 },
}));
