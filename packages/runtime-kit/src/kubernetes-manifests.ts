import { createHash } from 'node:crypto';
import type { JsonObject, LaunchSpec, StartReplicaRequest } from '@berth/core';
import { modelFetcherScript, type FetchPlan } from './model-fetcher.js';

/** A Kubernetes object as JSON: enough typing to build and read the manifests Berth renders. */
export interface KubernetesManifest {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
  };
  readonly spec?: JsonObject;
  readonly status?: JsonObject;
}

/** Identifies one object. */
export interface KubernetesObjectRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
}

export const berthLabels = {
  managedBy: 'app.kubernetes.io/managed-by',
  component: 'app.kubernetes.io/component',
  replica: 'berth.dev/replica',
  vendor: 'berth.dev/vendor',
  /** Hash of the deployment resource name (label values cannot hold `/`); the full name is an annotation. */
  deployment: 'berth.dev/deployment-hash',
} as const;

export const berthAnnotations = {
  deployment: 'berth.dev/deployment',
  replicaSpec: 'berth.dev/replica-spec',
  acceleratorType: 'berth.dev/accelerator-type',
} as const;

export interface KubernetesManifestOptions {
  readonly namespace: string;
  /** Mount point of the model cache shared by the download init container and the engine. */
  readonly modelCachePath?: string;
  /** Render the `model-download` init container (gives the `downloading` phase). Default true. */
  readonly downloadInitContainer?: boolean;
  readonly serviceAccountName?: string;
  readonly imagePullSecrets?: readonly string[];
  readonly imagePullPolicy?: 'Always' | 'IfNotPresent' | 'Never';
  /** Extra labels on every object. */
  readonly labels?: Readonly<Record<string, string>>;
  /**
   * The gateway's base URL as pods reach it (e.g. `http://berth.berth.svc.cluster.local:8080`): replicas
   * download uploaded model files and add-ons from its signed URLs. Without it, only models the engine
   * fetches by name can be served.
   */
  readonly gatewayUrl?: string;
  /** Port of the `addon-fetcher` sidecar on replicas of deployments with add-ons. Default 8081. */
  readonly addonFetcherPort?: number;
}

/** Where an uploaded base model's files go on a replica (the engine's `--model`). */
export function uploadedWeightsPath(options: Pick<KubernetesManifestOptions, 'modelCachePath'>): string {
  return `${options.modelCachePath ?? '/models'}/weights`;
}

/** Name of a replica's Deployment and Service. */
export function kubernetesReplicaName(replicaId: string): string {
  return `berth-${replicaId}`;
}

/** Label value identifying a deployment resource name. */
export function deploymentLabelValue(deployment: string): string {
  return createHash('sha256').update(deployment).digest('hex').slice(0, 16);
}

/**
 * Renders one replica as a Deployment (one pod: `replicas: 1`, `Recreate`) and a ClusterIP Service in front of
 * it, so that each replica has its own endpoint and can be stopped on its own. The pod requests the vendor's
 * device resource (limits = requests = acceleratorCount), is pinned by node selector to its accelerator type,
 * tolerates the device taint, gets the visibility env var, a memory-backed `/dev/shm` for tensor parallelism,
 * a model cache filled by a `model-download` init container, and readiness/startup probes on `/health`.
 *
 * An uploaded base model (`weightsPlan`) is downloaded by the `model-download` init container running the
 * model fetcher ({@link modelFetcherScript}) on the plan's short-lived signed URLs into
 * {@link uploadedWeightsPath}, checking each file's size and SHA-256; the pod spec holds no other credential.
 * A deployment with add-ons gets the `addon-fetcher` sidecar (same program, serving `POST /fetch` on
 * `addonFetcherPort`, exposed by the Service as port `fetch`) that downloads add-on files into the shared
 * cache before the gateway asks the engine to load them.
 */
export function renderKubernetesManifests(
  launch: LaunchSpec,
  request: StartReplicaRequest,
  options: KubernetesManifestOptions,
  weightsPlan?: FetchPlan,
): { readonly deployment: KubernetesManifest; readonly service: KubernetesManifest } {
  const name = kubernetesReplicaName(request.replicaId);
  const cache = options.modelCachePath ?? '/models';
  const labels: Record<string, string> = {
    ...options.labels,
    'app.kubernetes.io/name': 'berth-replica',
    [berthLabels.managedBy]: 'berth',
    [berthLabels.component]: 'inference-replica',
    [berthLabels.replica]: request.replicaId,
    [berthLabels.vendor]: launch.vendor,
    [berthLabels.deployment]: deploymentLabelValue(request.deployment),
  };
  const annotations: Record<string, string> = {
    [berthAnnotations.deployment]: request.deployment,
    [berthAnnotations.replicaSpec]: JSON.stringify(request.spec),
    [berthAnnotations.acceleratorType]: launch.acceleratorType,
  };
  const deviceResource = Object.keys(launch.resources)[0] ?? 'accelerator';
  const resources: JsonObject = { limits: { ...launch.resources }, requests: { ...launch.resources } };
  const env = Object.entries(launch.env).map(([key, value]) => ({ name: key, value }));
  const volumeMounts = [
    { name: 'model-cache', mountPath: cache },
    { name: 'shm', mountPath: '/dev/shm' },
  ];
  const pullPolicy: JsonObject = options.imagePullPolicy ? { imagePullPolicy: options.imagePullPolicy } : {};
  const fetcherEnv = (root: string) => [
    { name: 'BERTH_GATEWAY_URL', value: options.gatewayUrl ?? '' },
    { name: 'BERTH_FETCH_ROOT', value: root },
  ];
  const initContainers = weightsPlan
    ? [
        {
          name: 'model-download',
          image: launch.image,
          command: ['python3', '-c', modelFetcherScript, 'once'],
          env: [...fetcherEnv(cache), { name: 'BERTH_FETCH_PLAN', value: JSON.stringify(weightsPlan) }],
          volumeMounts: [{ name: 'model-cache', mountPath: cache }],
          terminationMessagePolicy: 'FallbackToLogsOnError',
          ...pullPolicy,
        },
      ]
    : options.downloadInitContainer === false
      ? []
      : [
          {
            name: 'model-download',
            image: launch.image,
            args: ['download', '--model', launch.engineArgs.model, '--download-dir', cache],
            volumeMounts: [{ name: 'model-cache', mountPath: cache }],
            ...pullPolicy,
          },
        ];
  const fetcherPort = options.addonFetcherPort ?? 8081;
  const sidecars = launch.engineArgs.lora
    ? [
        {
          name: 'addon-fetcher',
          image: launch.image,
          command: ['python3', '-c', modelFetcherScript, 'serve', String(fetcherPort)],
          env: fetcherEnv(`${cache}/addons`),
          ports: [{ name: 'fetch', containerPort: fetcherPort, protocol: 'TCP' }],
          readinessProbe: { httpGet: { path: '/health', port: 'fetch' }, periodSeconds: 5, failureThreshold: 3 },
          volumeMounts: [{ name: 'model-cache', mountPath: cache }],
          ...pullPolicy,
        },
      ]
    : [];
  const probe = (failureThreshold: number, periodSeconds: number) => ({
    httpGet: { path: '/health', port: 'http' },
    periodSeconds,
    failureThreshold,
  });
  const deployment: KubernetesManifest = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: options.namespace, labels, annotations },
    spec: {
      replicas: 1,
      strategy: { type: 'Recreate' },
      selector: { matchLabels: { [berthLabels.replica]: request.replicaId } },
      template: {
        metadata: { labels, annotations: { [berthAnnotations.deployment]: request.deployment } },
        spec: {
          ...(options.serviceAccountName ? { serviceAccountName: options.serviceAccountName } : {}),
          ...(options.imagePullSecrets ? { imagePullSecrets: options.imagePullSecrets.map((s) => ({ name: s })) } : {}),
          nodeSelector: { ...launch.nodeSelector },
          tolerations: [{ key: deviceResource, operator: 'Exists', effect: 'NoSchedule' }],
          initContainers,
          containers: [
            {
              name: 'engine',
              image: launch.image,
              args: [...launch.args, '--download-dir', cache],
              env,
              ports: [{ name: 'http', containerPort: launch.port, protocol: 'TCP' }],
              resources,
              readinessProbe: probe(3, 5),
              startupProbe: probe(360, 5),
              volumeMounts,
              ...pullPolicy,
            },
            ...sidecars,
          ],
          volumes: [
            { name: 'model-cache', emptyDir: {} },
            { name: 'shm', emptyDir: { medium: 'Memory' } },
          ],
        },
      },
    },
  };
  const service: KubernetesManifest = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: options.namespace, labels, annotations: { [berthAnnotations.deployment]: request.deployment } },
    spec: {
      type: 'ClusterIP',
      selector: { [berthLabels.replica]: request.replicaId },
      ports: [
        { name: 'http', port: launch.port, targetPort: 'http', protocol: 'TCP' },
        ...(sidecars.length > 0 ? [{ name: 'fetch', port: fetcherPort, targetPort: 'fetch', protocol: 'TCP' }] : []),
      ],
    },
  };
  return { deployment, service };
}
