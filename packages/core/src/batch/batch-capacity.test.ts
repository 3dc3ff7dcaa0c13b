import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../contracts/json.js';
import { systemContext, type RequestContext } from '../contracts/request-context.js';
import { Code, GatewayError } from '../errors/index.js';
import { servingDirectoryToken, storageToken } from '../kernel/tokens.js';
import type { ServingDirectory } from '../ports/serving-directory.js';
import type { Storage } from '../ports/storage.js';
import type { BatchInferenceJob } from '../resources/batch-inference-jobs/batch-inference-job-schema.js';
import type { DeploymentService } from '../resources/deployments/deployment-service.js';
import { memoryStorage } from '../testing/index.js';
import { createTestGateway, principalContext, type TestGateway } from '../testing/test-gateway.js';
import { BatchCapacity, temporaryDeploymentRecords, type TemporaryDeploymentsRecord } from './batch-capacity.js';

const account = 'acme';
const admin: RequestContext = principalContext(account, 'admin');
const ctx = systemContext('batch-test');
const model = `accounts/${account}/models/m`;

let tg: TestGateway;
let storage: Storage;
let directory: ServingDirectory;
const resolve = (m: string) => directory.resolve(ctx, m);
let deployments: DeploymentService;

async function job(id: string, state = 'JOB_STATE_PENDING', precision = 'FP16'): Promise<BatchInferenceJob> {
  const name = `accounts/${account}/batchInferenceJobs/${id}`;
  const now = new Date().toISOString();
  const data: BatchInferenceJob = { name, createTime: now, updateTime: now, model, state: state as BatchInferenceJob['state'], precision: precision as BatchInferenceJob['precision'] };
  await storage.resources.create(ctx, name, data as JsonObject);
  return data;
}

async function liveDeployments(): Promise<JsonObject[]> {
  return (await deployments.list(admin, account, {})).items as JsonObject[];
}

async function records(): Promise<TemporaryDeploymentsRecord[]> {
  return temporaryDeploymentRecords(systemContext(), storage, account);
}

beforeEach(async () => {
  tg = await createTestGateway({ plugins: [memoryStorage()] });
  storage = tg.gateway.resolve(storageToken);
  directory = tg.gateway.resolve(servingDirectoryToken);
  deployments = tg.services.deployments;
  await tg.services.models.create(admin, account, { kind: 'HUB_BASE_MODEL', baseModelDetails: { defaultPrecision: 'FP16' } }, 'm');
});

afterEach(async () => {
  await tg.stop();
});

describe('batch job capacity', () => {
  it('two jobs starting at once share one temporary deployment, deleted when the last of them releases it', async () => {
    const capacity = new BatchCapacity(storage, deployments);
    const [a, b] = [await job('a'), await job('b')];
    const [ca, cb] = await Promise.all([capacity.provide(ctx, resolve, a, false), capacity.provide(ctx, resolve, b, false)]);
    expect(ca).toEqual({ deployment: cb.deployment, temporary: true });
    const live = await liveDeployments();
    expect(live.map((d) => d.name)).toEqual([ca.deployment]);
    expect(live[0]).toMatchObject({ baseModel: model, precision: 'FP16', minReplicaCount: 0, maxReplicaCount: 1 });

    // A resumed job (a crash after it joined) provides again: the same deployment, held once.
    expect(await capacity.provide(ctx, resolve, a, false)).toEqual(ca);
    expect((await records())[0]).toMatchObject({ entries: [{ deployment: ca.deployment, holders: [a.name, b.name] }] });

    await capacity.release(ctx, a.name!);
    expect((await liveDeployments()).map((d) => d.name)).toEqual([ca.deployment]);
    await capacity.release(ctx, b.name!);
    await capacity.release(ctx, b.name!);
    expect(await liveDeployments()).toEqual([]);
    expect((await deployments.get(admin, ca.deployment)).state).toBe('DELETED');
    expect(await records()).toEqual([]);
  });

  it('a crash between marking a temporary deployment released and deleting it is finished by the next release', async () => {
    let failDelete = true;
    const flaky = Object.create(deployments) as DeploymentService;
    flaky.delete = async (c, name, options) => {
      if (failDelete) throw new GatewayError(Code.UNAVAILABLE, 'the instance died');
      return deployments.delete(c, name, options);
    };
    const capacity = new BatchCapacity(storage, flaky);
    const a = await job('a');
    const held = await capacity.provide(ctx, resolve, a, false);
    await expect(capacity.release(ctx, a.name!)).rejects.toMatchObject({ code: Code.UNAVAILABLE });
    expect((await records())[0]).toMatchObject({ entries: [{ deployment: held.deployment, holders: [], releasing: true }] });
    // A new job of the model meanwhile gets a new temporary deployment (the released one is never reused).
    const b = await job('b');
    const next = await capacity.provide(ctx, resolve, b, false);
    expect(next.deployment).not.toBe(held.deployment);
    failDelete = false;
    await capacity.release(ctx, a.name!);
    expect((await liveDeployments()).map((d) => d.name)).toEqual([next.deployment]);
    await capacity.release(ctx, b.name!);
    expect(await liveDeployments()).toEqual([]);
    expect(await records()).toEqual([]);
  });

  it('drops holders whose job is gone or stopped when another job releases', async () => {
    const capacity = new BatchCapacity(storage, deployments);
    const a = await job('a');
    const b = await job('b');
    const held = await capacity.provide(ctx, resolve, a, false);
    await capacity.provide(ctx, resolve, b, false);
    await storage.resources.delete(ctx, a.name!);
    await capacity.release(ctx, b.name!);
    expect(await liveDeployments()).toEqual([]);
    expect((await deployments.get(admin, held.deployment)).state).toBe('DELETED');
  });

  it('uses an existing deployment serving the precision; a requested precision no deployment serves gets a temporary one', async () => {
    const capacity = new BatchCapacity(storage, deployments);
    const own = await deployments.create(admin, account, { baseModel: model, precision: 'FP16', minReplicaCount: 0 }, { deploymentId: 'own' });
    const bf16 = await deployments.create(admin, account, { baseModel: model, precision: 'BF16' }, { deploymentId: 'bf16' });
    expect(await capacity.provide(ctx, resolve, await job('same'), false)).toEqual({ deployment: own.name, temporary: false });
    expect(await capacity.provide(ctx, resolve, await job('other', 'JOB_STATE_PENDING', 'BF16'), true)).toEqual({ deployment: bf16.name, temporary: false });
    // Defaulted (not requested) precision: the model's deployment is used as it is.
    expect(await capacity.provide(ctx, resolve, await job('loose', 'JOB_STATE_PENDING', 'FP8'), false)).toEqual({ deployment: own.name, temporary: false });
    const fp8 = await capacity.provide(ctx, resolve, await job('strict', 'JOB_STATE_PENDING', 'FP8'), true);
    expect(fp8.temporary).toBe(true);
    expect((await deployments.get(admin, fp8.deployment)).precision).toBe('FP8');
  });

  it('scales a deployment at zero desired replicas to one (the :scale path) and reports readiness from its ready replicas', async () => {
    const capacity = new BatchCapacity(storage, deployments);
    const own = await deployments.create(admin, account, { baseModel: model, minReplicaCount: 0, maxReplicaCount: 3 }, { deploymentId: 'own' });
    await deployments.scale(admin, own.name!, 0);
    expect(await capacity.ready(ctx, own.name!)).toBe(false);
    expect((await deployments.get(admin, own.name!)).desiredReplicaCount).toBe(1);
    await deployments.delete(admin, own.name!, { ignoreChecks: true });
    await expect(capacity.ready(ctx, own.name!)).rejects.toMatchObject({ code: Code.FAILED_PRECONDITION });
  });

  it('refuses a temporary deployment for an add-on with no deployed base model', async () => {
    const capacity = new BatchCapacity(storage, deployments);
    await tg.services.models.create(admin, account, { kind: 'HUB_PEFT_ADDON', peftDetails: { baseModel: model, r: 8, targetModules: ['q_proj'] } }, 'lora');
    const addon: BatchInferenceJob = { ...(await job('addon')), model: `accounts/${account}/models/lora` };
    await expect(capacity.provide(ctx, resolve, addon, false)).rejects.toMatchObject({ code: Code.FAILED_PRECONDITION, reason: 'NO_CAPACITY' });
    await capacity.release(ctx, addon.name!);
    expect(await liveDeployments()).toEqual([]);
  });
});
