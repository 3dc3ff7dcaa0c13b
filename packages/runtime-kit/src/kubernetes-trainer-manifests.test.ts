import type { LaunchProfile } from '@berth/core';
import { describe, expect, it } from 'vitest';
import { checkObjectStore } from './kubernetes-trainer.js';
import {
  hyperparameterEnvName, objectStoreCredentialsPath, renderTrainerJob, renderTrainerSecret, trackerApiKeySecretKey, trainerSecretName,
} from './kubernetes-trainer-manifests.js';

const launch: LaunchProfile = { image: 'engine', deviceResource: 'gpux.example/gpu', visibleDevicesEnv: 'GPUX_VISIBLE_DEVICES', acceleratorTypeLabel: 'gpux.example/accelerator-type' };
const job = 'accounts/acme/reinforcementFineTuningJobs/toy';
const options = { vendor: 'gpux', launch, image: 'registry.example/trainer:1', namespace: 'training' };
const request = { job, step: 3, specUrl: 'http://gw/spec?signature=x', acceleratorType: 'GPUX_H100_80GB', acceleratorCount: 8, nodeCount: 1 };

interface Container {
  env: { name: string; value?: string; valueFrom?: unknown }[];
  volumeMounts: { name: string; mountPath: string; readOnly?: boolean }[];
}
const podOf = (manifest: ReturnType<typeof renderTrainerJob>['job']) =>
  (manifest.spec as unknown as { template: { spec: { containers: Container[]; volumes: { name: string; secret?: { secretName: string } }[] } } }).template.spec;
const envOf = (container: Container) => Object.fromEntries(container.env.filter((e) => e.value !== undefined).map((e) => [e.name, e.value]));

describe('the trainer Job: hyper-parameters, tracker and object store', () => {
  it('passes every hyper-parameter as BERTH_TRAIN_HP_* (the template only in the input document)', () => {
    const hyperparameters = {
      learningRate: 0.0002, loraRank: 16, loraAlpha: 32, lossMethod: 'DAPO', klBeta: 0.05, temperature: 0.9, maxOutputTokens: 512,
      batchSize: 65536, batchSizeSamples: 64, gradientAccumulationSteps: 4, learningRateWarmupSteps: 10, optimizerWeightDecay: 0.01, maxContextLength: 8192,
      jinjaTemplate: '{% for m in messages %}{{ m.content }}{% endfor %}',
    };
    const { job: manifest } = renderTrainerJob({ ...request, hyperparameters }, options);
    const env = envOf(podOf(manifest).containers[0]!);
    expect(env).toMatchObject({
      BERTH_TRAIN_HP_LEARNING_RATE: '0.0002', BERTH_TRAIN_HP_LORA_RANK: '16', BERTH_TRAIN_HP_LORA_ALPHA: '32', BERTH_TRAIN_HP_LOSS_METHOD: 'DAPO',
      BERTH_TRAIN_HP_KL_BETA: '0.05', BERTH_TRAIN_HP_TEMPERATURE: '0.9', BERTH_TRAIN_HP_MAX_OUTPUT_TOKENS: '512', BERTH_TRAIN_HP_BATCH_SIZE: '65536',
      BERTH_TRAIN_HP_BATCH_SIZE_SAMPLES: '64', BERTH_TRAIN_HP_GRADIENT_ACCUMULATION_STEPS: '4', BERTH_TRAIN_HP_LEARNING_RATE_WARMUP_STEPS: '10',
      BERTH_TRAIN_HP_OPTIMIZER_WEIGHT_DECAY: '0.01', BERTH_TRAIN_HP_MAX_CONTEXT_LENGTH: '8192',
      // The contract's own variables are still there.
      BERTH_TRAIN_STEP: '3', BERTH_TRAIN_SPEC_URL: 'http://gw/spec?signature=x',
    });
    expect(Object.keys(env).filter((name) => name.startsWith('BERTH_TRAIN_HP_'))).toHaveLength(13);
    expect(JSON.stringify(manifest)).not.toContain('messages %}');
    expect(hyperparameterEnvName('gradientAccumulationSteps')).toBe('BERTH_TRAIN_HP_GRADIENT_ACCUMULATION_STEPS');
  });

  it('passes the tracker\'s API key through the job\'s Secret, never in the Job', () => {
    const tracker = { apiKey: 'tracker-key-0123456789', project: 'harbor', entity: 'team', runId: 'run-7', url: 'https://tracker.example' };
    const { job: manifest } = renderTrainerJob({ ...request, tracker }, options);
    expect(JSON.stringify(manifest)).not.toContain('tracker-key-0123456789');
    const container = podOf(manifest).containers[0]!;
    expect(envOf(container)).toMatchObject({
      BERTH_TRAIN_TRACKER_ENABLED: 'true', BERTH_TRAIN_TRACKER_PROJECT: 'harbor', BERTH_TRAIN_TRACKER_ENTITY: 'team', BERTH_TRAIN_TRACKER_RUN_ID: 'run-7', BERTH_TRAIN_TRACKER_URL: 'https://tracker.example',
    });
    expect(container.env.find((e) => e.name === 'BERTH_TRAIN_TRACKER_API_KEY')).toEqual({
      name: 'BERTH_TRAIN_TRACKER_API_KEY', valueFrom: { secretKeyRef: { name: trainerSecretName(job), key: trackerApiKeySecretKey } },
    });
    const secret = renderTrainerSecret({ job, tracker }, options)!;
    expect(secret).toMatchObject({ apiVersion: 'v1', kind: 'Secret', type: 'Opaque', metadata: { name: trainerSecretName(job), namespace: 'training' }, stringData: { [trackerApiKeySecretKey]: tracker.apiKey } });
    // No key, no Secret and no reference to one.
    expect(renderTrainerSecret({ job, tracker: { project: 'harbor' } }, options)).toBeUndefined();
    const keyless = renderTrainerJob({ ...request, tracker: { project: 'harbor' } }, options).job;
    expect(podOf(keyless).containers[0]!.env.map((e) => e.name)).not.toContain('BERTH_TRAIN_TRACKER_API_KEY');
    expect(envOf(podOf(renderTrainerJob(request, options).job).containers[0]!)).not.toHaveProperty('BERTH_TRAIN_TRACKER_ENABLED');
  });

  it('mounts the object store\'s credentials Secret read-only and names its IAM role', () => {
    const objectStore = { credentialsSecret: 'acme-bucket-reader', iamRoleArn: 'arn:aws:iam::123456789012:role/trainer' };
    const pod = podOf(renderTrainerJob({ ...request, objectStore }, options).job);
    expect(pod.volumes).toContainEqual({ name: 'object-store', secret: { secretName: 'acme-bucket-reader' } });
    expect(pod.containers[0]!.volumeMounts).toContainEqual({ name: 'object-store', mountPath: objectStoreCredentialsPath, readOnly: true });
    expect(envOf(pod.containers[0]!)).toMatchObject({ BERTH_TRAIN_OBJECT_STORE_CREDENTIALS_DIR: objectStoreCredentialsPath, BERTH_TRAIN_OBJECT_STORE_ROLE_ARN: objectStore.iamRoleArn });
    expect(() => checkObjectStore({ job, objectStore })).not.toThrow();
    expect(podOf(renderTrainerJob(request, options).job).volumes.map((v) => v.name)).toEqual(['shm', 'scratch']);
  });

  it('refuses a credentials Secret of another account, or a role that is not an IAM role ARN', () => {
    for (const credentialsSecret of ['other-bucket', 'acme', 'Acme-bucket', 'acme-bucket/../x']) {
      expect(() => checkObjectStore({ job, objectStore: { credentialsSecret } }), credentialsSecret).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', reason: 'TRAINER_INPUT_REFUSED' }));
    }
    expect(() => checkObjectStore({ job, objectStore: { iamRoleArn: 'trainer' } })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });
});
