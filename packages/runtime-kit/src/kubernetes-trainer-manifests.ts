import { createHash } from 'node:crypto';
import type { JsonObject, LaunchProfile } from '@berth/core';
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

/** The label selector of one step's objects. */
export function trainerStepSelector(job: string, step: number): string {
  return `${trainerLabels.job}=${trainingJobLabelValue(job)},${trainerLabels.step}=${step}`;
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
  const labels: Record<string, string> = {
    ...options.labels,
    'app.kubernetes.io/name': 'berth-trainer',
    [berthLabels.managedBy]: 'berth',
    [berthLabels.component]: 'trainer',
    [berthLabels.vendor]: options.vendor,
    [trainerLabels.job]: trainingJobLabelValue(request.job),
    [trainerLabels.step]: String(request.step),
  };
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
  };
  const env = Object.entries({ ...launch.env, ...options.env, ...contract }).map(([key, value]) => ({ name: key, value }));
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
              volumeMounts: [{ name: 'shm', mountPath: '/dev/shm' }, { name: 'scratch', mountPath: '/scratch' }],
              terminationMessagePolicy: 'FallbackToLogsOnError',
              ...(options.imagePullPolicy ? { imagePullPolicy: options.imagePullPolicy } : {}),
            },
          ],
          volumes: [
            { name: 'shm', emptyDir: { medium: 'Memory' } },
            { name: 'scratch', emptyDir: {} },
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
