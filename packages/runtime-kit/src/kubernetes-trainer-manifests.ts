import { createHash } from 'node:crypto';
import type { JsonObject, LaunchProfile, TrainerHyperparameters, TrainerObjectStore, TrainerTracker } from '@berth/core';
import { berthLabels, type KubernetesManifest } from './kubernetes-manifests.js';

export const trainerLabels = {
  /** Hash of the fine-tuning job's resource name (label values cannot hold `/`); the full name is an annotation. */
  job: 'berth.dev/training-job-hash',
  step: 'berth.dev/training-step',
} as const;

export const trainerAnnotations = {
  job: 'berth.dev/training-job',
  acceleratorType: 'berth.dev/accelerator-type',
} as const;

/** Key of the tracker's API key in the job's Secret ({@link trainerSecretName}). */
export const trackerApiKeySecretKey = 'tracker-api-key';
/** Where the job's `objectStoreConfig.credentialsSecret` is mounted in the trainer container. */
export const objectStoreCredentialsPath = '/var/run/berth/object-store';

/** Port on which node 0 of a multi-node step accepts the other nodes (`BERTH_TRAIN_COORDINATOR`). */
export const trainerCoordinatorPort = 29500;

/** What one training step's Kubernetes Job is made of. */
export interface TrainerJobRequest {
  /** The fine-tuning job's resource name. */
  readonly job: string;
  /** 1-based step number. */
  readonly step: number;
  /** Absolute signed GET URL of the step's input document (the container contract's `BERTH_TRAIN_SPEC_URL`). */
  readonly specUrl: string;
  readonly acceleratorType: string;
  /** Accelerators per node. */
  readonly acceleratorCount: number;
  /** Nodes (pods) training together: an Indexed Job with one pod per node. */
  readonly nodeCount: number;
  /** Passed as `BERTH_TRAIN_HP_*` variables (all but `jinjaTemplate`, which only the input document carries). */
  readonly hyperparameters?: TrainerHyperparameters;
  /** `BERTH_TRAIN_TRACKER_*`; the API key through the job's Secret, never in the manifest. */
  readonly tracker?: TrainerTracker;
  /** The credentials Secret mounted read-only at {@link objectStoreCredentialsPath}; the role in `BERTH_TRAIN_OBJECT_STORE_ROLE_ARN`. */
  readonly objectStore?: TrainerObjectStore;
}

export interface TrainerJobOptions {
  readonly vendor: string;
  /** The vendor's launch profile: device resource, visibility variable, node label, extra environment. */
  readonly launch: LaunchProfile;
  /** The trainer container image (the team's own, following the container contract in docs/accelerator-trainers.md). */
  readonly image: string;
  readonly namespace: string;
  /** Seconds a step may run before Kubernetes stops it (`activeDeadlineSeconds`). Default 6 hours. */
  readonly activeDeadlineSeconds?: number;
  /** Pod retries within one step (`backoffLimit`). Default 1. */
  readonly backoffLimit?: number;
  readonly serviceAccountName?: string;
  readonly imagePullSecrets?: readonly string[];
  readonly imagePullPolicy?: 'Always' | 'IfNotPresent' | 'Never';
  /** Extra labels on every object. */
  readonly labels?: Readonly<Record<string, string>>;
  /** Extra environment of the trainer container (e.g. an NCCL setting); the contract's variables win. */
  readonly env?: Readonly<Record<string, string>>;
}

/** Label value identifying a fine-tuning job's resource name. */
export function trainingJobLabelValue(job: string): string {
  return createHash('sha256').update(job).digest('hex').slice(0, 16);
}

/** Name of a step's Kubernetes Job (and of its headless Service when it spans several nodes). */
export function trainerJobName(job: string, step: number): string {
  return `berth-train-${trainingJobLabelValue(job)}-${step}`;
}

/** Name of the Secret holding a fine-tuning job's secrets (the tracker's API key), shared by its steps. */
export function trainerSecretName(job: string): string {
  return `berth-train-${trainingJobLabelValue(job)}`;
}

/** `learningRate` → `BERTH_TRAIN_HP_LEARNING_RATE`. */
export function hyperparameterEnvName(key: string): string {
  return `BERTH_TRAIN_HP_${key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()}`;
}

/** The hyper-parameters as the container's environment (strings; `jinjaTemplate` left to the input document). */
function hyperparameterEnv(hp: TrainerHyperparameters | undefined): Record<string, string> {
  if (!hp) return {};
  return Object.fromEntries(Object.entries(hp).flatMap(([key, value]) =>
    (key === 'jinjaTemplate' || value === undefined ? [] : [[hyperparameterEnvName(key), String(value)]])));
}

/** The labels of every object of a fine-tuning job's trainer (the host's, then Berth's, then the job's). */
function trainerJobLabels(job: string, options: Pick<TrainerJobOptions, 'vendor' | 'labels'>): Record<string, string> {
  return {
    ...options.labels,
    'app.kubernetes.io/name': 'berth-trainer',
    [berthLabels.managedBy]: 'berth',
    [berthLabels.component]: 'trainer',
    [berthLabels.vendor]: options.vendor,
    [trainerLabels.job]: trainingJobLabelValue(job),
  };
}

/**
 * The Secret of a fine-tuning job's steps: the tracker's API key (`stringData`, so the API server encodes
 * it). Undefined when the job has no secret to pass.
 */
export function renderTrainerSecret(
  request: Pick<TrainerJobRequest, 'job' | 'tracker'>, options: Pick<TrainerJobOptions, 'vendor' | 'namespace' | 'labels'>,
): (KubernetesManifest & { readonly type: string; readonly stringData: Readonly<Record<string, string>> }) | undefined {
  const apiKey = request.tracker?.apiKey;
  if (apiKey === undefined || apiKey === '') return undefined;
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: trainerSecretName(request.job),
      namespace: options.namespace,
      labels: trainerJobLabels(request.job, options),
      annotations: { [trainerAnnotations.job]: request.job },
    },
    type: 'Opaque',
    stringData: { [trackerApiKeySecretKey]: apiKey },
  };
}

/** The label selector of one step's objects. */
export function trainerStepSelector(job: string, step: number): string {
  return `${trainerLabels.job}=${trainingJobLabelValue(job)},${trainerLabels.step}=${step}`;
}

/** The tracker's settings but its API key (which comes from the job's Secret). */
function trackerEnv(tracker: TrainerTracker | undefined): Record<string, string> {
  if (!tracker) return {};
  const names: Record<string, string | undefined> = {
    BERTH_TRAIN_TRACKER_PROJECT: tracker.project, BERTH_TRAIN_TRACKER_ENTITY: tracker.entity, BERTH_TRAIN_TRACKER_RUN_ID: tracker.runId, BERTH_TRAIN_TRACKER_URL: tracker.url,
  };
  return { BERTH_TRAIN_TRACKER_ENABLED: 'true', ...Object.fromEntries(Object.entries(names).filter((entry): entry is [string, string] => entry[1] !== undefined)) };
}

/**
 * Renders one training step as a Kubernetes Job running the trainer container: one pod per node
 * (`completionMode: Indexed` when `nodeCount` > 1, with a headless Service so that pods reach node 0 at
 * `BERTH_TRAIN_COORDINATOR`), each requesting `acceleratorCount` of the vendor's device resource (limits =
 * requests), pinned to the accelerator type by node selector, tolerating the device taint, with the vendor's
 * visibility variable and a memory-backed `/dev/shm`. The pod spec holds no credential beyond the step's
 * signed input URL, which expires (the input document lists the other signed URLs).
 */
export function renderTrainerJob(request: TrainerJobRequest, options: TrainerJobOptions): { readonly job: KubernetesManifest; readonly service?: KubernetesManifest } {
  const name = trainerJobName(request.job, request.step);
  const multiNode = request.nodeCount > 1;
  const labels: Record<string, string> = { ...trainerJobLabels(request.job, options), [trainerLabels.step]: String(request.step) };
  const annotations = { [trainerAnnotations.job]: request.job, [trainerAnnotations.acceleratorType]: request.acceleratorType };
  const { launch } = options;
  const devices = Array.from({ length: request.acceleratorCount }, (_, i) => String(i)).join(',');
  const contract: Record<string, string> = {
    BERTH_TRAIN_SPEC_URL: request.specUrl,
    BERTH_TRAIN_STEP: String(request.step),
    BERTH_TRAIN_NODE_COUNT: String(request.nodeCount),
    BERTH_TRAIN_ACCELERATOR_TYPE: request.acceleratorType,
    BERTH_TRAIN_ACCELERATOR_COUNT: String(request.acceleratorCount),
    ...(multiNode ? { BERTH_TRAIN_COORDINATOR: `${name}-0.${name}.${options.namespace}.svc:${trainerCoordinatorPort}` } : {}),
    [launch.visibleDevicesEnv]: devices,
    ...hyperparameterEnv(request.hyperparameters),
    ...trackerEnv(request.tracker),
    ...(request.objectStore?.credentialsSecret ? { BERTH_TRAIN_OBJECT_STORE_CREDENTIALS_DIR: objectStoreCredentialsPath } : {}),
    ...(request.objectStore?.iamRoleArn ? { BERTH_TRAIN_OBJECT_STORE_ROLE_ARN: request.objectStore.iamRoleArn } : {}),
  };
  const env: JsonObject[] = Object.entries({ ...launch.env, ...options.env, ...contract }).map(([key, value]) => ({ name: key, value }));
  if (request.tracker?.apiKey) {
    env.push({ name: 'BERTH_TRAIN_TRACKER_API_KEY', valueFrom: { secretKeyRef: { name: trainerSecretName(request.job), key: trackerApiKeySecretKey } } });
  }
  const credentials = request.objectStore?.credentialsSecret;
  const resources: JsonObject = { limits: { [launch.deviceResource]: request.acceleratorCount }, requests: { [launch.deviceResource]: request.acceleratorCount } };
  const job: KubernetesManifest = {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, namespace: options.namespace, labels, annotations },
    spec: {
      completions: request.nodeCount,
      parallelism: request.nodeCount,
      completionMode: multiNode ? 'Indexed' : 'NonIndexed',
      backoffLimit: options.backoffLimit ?? 1,
      activeDeadlineSeconds: options.activeDeadlineSeconds ?? 6 * 3600,
      ttlSecondsAfterFinished: 3600,
      template: {
        metadata: { labels, annotations },
        spec: {
          restartPolicy: 'Never',
          ...(multiNode ? { subdomain: name } : {}),
          ...(options.serviceAccountName ? { serviceAccountName: options.serviceAccountName } : {}),
          ...(options.imagePullSecrets ? { imagePullSecrets: options.imagePullSecrets.map((s) => ({ name: s })) } : {}),
          nodeSelector: { [launch.acceleratorTypeLabel]: request.acceleratorType },
          tolerations: [{ key: launch.deviceResource, operator: 'Exists', effect: 'NoSchedule' }],
          containers: [
            {
              name: 'trainer',
              image: options.image,
              env,
              resources,
              ...(multiNode ? { ports: [{ name: 'coordinator', containerPort: trainerCoordinatorPort, protocol: 'TCP' }] } : {}),
              volumeMounts: [
                { name: 'shm', mountPath: '/dev/shm' },
                { name: 'scratch', mountPath: '/scratch' },
                ...(credentials ? [{ name: 'object-store', mountPath: objectStoreCredentialsPath, readOnly: true }] : []),
              ],
              terminationMessagePolicy: 'FallbackToLogsOnError',
              ...(options.imagePullPolicy ? { imagePullPolicy: options.imagePullPolicy } : {}),
            },
          ],
          volumes: [
            { name: 'shm', emptyDir: { medium: 'Memory' } },
            { name: 'scratch', emptyDir: {} },
            ...(credentials ? [{ name: 'object-store', secret: { secretName: credentials } }] : []),
          ],
        },
      },
    },
  };
  if (!multiNode) return { job };
  const service: KubernetesManifest = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: options.namespace, labels, annotations },
    spec: {
      clusterIP: 'None',
      publishNotReadyAddresses: true,
      selector: { [trainerLabels.job]: trainingJobLabelValue(request.job), [trainerLabels.step]: String(request.step) },
      ports: [{ name: 'coordinator', port: trainerCoordinatorPort, targetPort: 'coordinator', protocol: 'TCP' }],
    },
  };
  return { job, service };
}
