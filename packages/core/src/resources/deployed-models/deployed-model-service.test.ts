import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { memoryStorage } from '../../testing/index.js';
import { ManualClock, createTestGateway, principalContext, type TestGateway } from '../../testing/test-gateway.js';
import type { JsonObject } from '../../ports/json.js';
import { deployedModelStateFor } from './deployed-model-rules.js';
import { expectRejected as rejected } from '../../testing/assertions.js';

const account = 'acme';
const ctx = principalContext(account, 'admin');
const base = `accounts/${account}/models/base`;
const otherBase = `accounts/${account}/models/other`;
const addon = `accounts/${account}/models/addon`;
const deployment = (id: string) => `accounts/${account}/deployments/${id}`;
const record = (id: string) => `accounts/${account}/deployedModels/${id}`;

let tg: TestGateway;

beforeEach(async () => {
  const clock = new ManualClock();
  // Every storage write gets a later time, so creation order is unambiguous.
  const ticking = { now: () => (clock.advance(1000), clock.now()) };
  tg = await createTestGateway({ plugins: [memoryStorage()], clock: ticking });
  const models = tg.services.models;
  await models.create(ctx, account, { kind: 'HUB_BASE_MODEL', baseModelDetails: { parameterCount: '8000000000' } }, 'base');
  await models.create(ctx, account, { kind: 'HUB_BASE_MODEL', baseModelDetails: {} }, 'other');
  await models.create(ctx, account, { peftDetails: { baseModel: base, r: 8, targetModules: ['q_proj'] } }, 'addon');
  await tg.services.deployments.create(ctx, account, { baseModel: base, enableAddons: true }, { deploymentId: 'with-addons' });
  await tg.services.deployments.create(ctx, account, { baseModel: base }, { deploymentId: 'plain' });
});

afterEach(async () => {
  await tg.stop();
});

const deploy = (body: JsonObject, id?: string) => tg.services.deployedModels.create(ctx, account, body, id === undefined ? {} : { deployedModelId: id });

describe('automatic base-model records', () => {
  it('a deployment gets a DEPLOYING record of its base model, the first one default; GET model shows them', async () => {
    const refs = (await tg.services.models.get(ctx, base)).deployedModelRefs as JsonObject[];
    expect(refs).toEqual([
      { name: record('with-addons'), deployment: deployment('with-addons'), state: 'DEPLOYING', default: true, public: false },
      { name: record('plain'), deployment: deployment('plain'), state: 'DEPLOYING', default: false, public: false },
    ]);
  });

  it('without a runtime, deleting the deployment removes its records and the next one becomes default', async () => {
    await tg.services.deployments.delete(ctx, deployment('with-addons'));
    const refs = (await tg.services.models.get(ctx, base)).deployedModelRefs as JsonObject[];
    expect(refs).toEqual([{ name: record('plain'), deployment: deployment('plain'), state: 'DEPLOYING', default: true, public: false }]);
  });

  it('validateOnly creates no record', async () => {
    await tg.services.deployments.create(ctx, account, { baseModel: otherBase }, { deploymentId: 'dry', validateOnly: true });
    expect((await tg.services.models.get(ctx, otherBase)).deployedModelRefs).toBeUndefined();
  });
});

describe('create', () => {
  it('deploys an add-on to a deployment with enableAddons', async () => {
    const created = await deploy({ model: addon, deployment: deployment('with-addons'), displayName: 'LoRA', public: true }, 'lora');
    expect(created).toMatchObject({ name: record('lora'), model: addon, deployment: deployment('with-addons'), state: 'DEPLOYING', default: true, public: true, displayName: 'LoRA' });
    expect(await tg.services.deployedModels.get(ctx, record('lora'))).toEqual(created);
    const second = await deploy({ model: addon, deployment: deployment('plain') }).catch((e: unknown) => e);
    expect(second).toMatchObject({ code: 'FAILED_PRECONDITION' });
  });

  it('an add-on needs enableAddons on the deployment (FAILED_PRECONDITION)', async () => {
    const error = await rejected(deploy({ model: addon, deployment: deployment('plain') }), 'FAILED_PRECONDITION');
    expect(error.message).toContain('enableAddons');
  });

  it('an add-on whose upload is not validated (UPLOADING) is refused (FAILED_PRECONDITION), once READY it deploys', async () => {
    await tg.services.models.resources.mutate(ctx, addon, (m) => ({ ...m, state: 'UPLOADING' }));
    const error = await rejected(deploy({ model: addon, deployment: deployment('with-addons') }), 'FAILED_PRECONDITION');
    expect(error.message).toContain('UPLOADING');
    await tg.services.models.resources.mutate(ctx, addon, (m) => ({ ...m, state: 'READY' }));
    expect((await deploy({ model: addon, deployment: deployment('with-addons') })).state).toBe('DEPLOYING');
  });

  it('an add-on’s base model must be the deployment’s base model; another base model is refused', async () => {
    await tg.services.models.create(ctx, account, { peftDetails: { baseModel: otherBase, r: 8, targetModules: ['q_proj'] } }, 'foreign');
    expect((await rejected(deploy({ model: `accounts/${account}/models/foreign`, deployment: deployment('with-addons') }), 'INVALID_ARGUMENT')).field).toBe('model');
    expect((await rejected(deploy({ model: otherBase, deployment: deployment('with-addons') }), 'INVALID_ARGUMENT')).field).toBe('model');
  });

  it('model and deployment are required, must exist and be in the same account', async () => {
    expect((await rejected(deploy({ deployment: deployment('plain') }), 'INVALID_ARGUMENT')).field).toBe('model');
    expect((await rejected(deploy({ model: base }), 'INVALID_ARGUMENT')).field).toBe('deployment');
    expect((await rejected(deploy({ model: `accounts/${account}/models/nope`, deployment: deployment('plain') }), 'INVALID_ARGUMENT')).field).toBe('model');
    expect((await rejected(deploy({ model: base, deployment: deployment('nope') }), 'INVALID_ARGUMENT')).field).toBe('deployment');
    expect((await rejected(deploy({ model: 'accounts/other/models/base', deployment: deployment('plain') }), 'PERMISSION_DENIED')).message).toBe('permission denied on accounts/other');
  });

  it('the same model on the same deployment twice is ALREADY_EXISTS; so is a taken id', async () => {
    await rejected(deploy({ model: base, deployment: deployment('plain') }), 'ALREADY_EXISTS');
    await deploy({ model: addon, deployment: deployment('with-addons') }, 'x');
    await rejected(deploy({ model: addon, deployment: deployment('with-addons') }, 'x'), 'ALREADY_EXISTS');
  });

  it('a deleted deployment takes no models (FAILED_PRECONDITION)', async () => {
    await tg.services.deployments.delete(ctx, deployment('with-addons'));
    await rejected(deploy({ model: addon, deployment: deployment('with-addons') }), 'FAILED_PRECONDITION');
  });

  it('output-only fields in the body are ignored', async () => {
    const created = await deploy({ model: addon, deployment: deployment('with-addons'), state: 'DEPLOYED', default: false }, 'y');
    expect(created).toMatchObject({ state: 'DEPLOYING', default: true });
  });
});

describe('list, update, delete', () => {
  it('lists with filters on model, deployment and state', async () => {
    await deploy({ model: addon, deployment: deployment('with-addons') }, 'lora');
    const all = await tg.services.deployedModels.list(ctx, account, {});
    expect(all.items.map((r) => r.name)).toEqual([record('with-addons'), record('plain'), record('lora')]);
    const onPlain = await tg.services.deployedModels.list(ctx, account, { filter: `deployment = "${deployment('plain')}"` });
    expect(onPlain.items.map((r) => r.name)).toEqual([record('plain')]);
    expect((await tg.services.deployedModels.list(ctx, account, { filter: `model = "${addon}" AND state = DEPLOYING` })).totalSize).toBe(1);
  });

  it('updates displayName and public; model and deployment are immutable', async () => {
    expect((await tg.services.deployedModels.update(ctx, record('plain'), { public: true }, 'public')).public).toBe(true);
    await rejected(tg.services.deployedModels.update(ctx, record('plain'), { deployment: deployment('with-addons') }, 'deployment'), 'INVALID_ARGUMENT');
  });

  it('delete undeploys; the oldest remaining record of the model becomes default', async () => {
    await tg.services.deployedModels.delete(ctx, record('with-addons'));
    await rejected(tg.services.deployedModels.get(ctx, record('with-addons')), 'NOT_FOUND');
    expect((await tg.services.deployedModels.get(ctx, record('plain'))).default).toBe(true);
    await rejected(tg.services.deployedModels.delete(ctx, record('with-addons')), 'NOT_FOUND');
  });

  it('authorization: inference users may read, not write; other accounts may not read', async () => {
    const reader = principalContext(account, 'inference-user');
    expect((await tg.services.deployedModels.list(reader, account, {})).totalSize).toBe(2);
    await rejected(tg.services.deployedModels.delete(reader, record('plain')), 'PERMISSION_DENIED');
    await rejected(tg.services.deployedModels.get(principalContext('other', 'admin'), record('plain')), 'PERMISSION_DENIED');
  });
});

describe('deployedModelStateFor', () => {
  it.each([
    ['READY', 'DEPLOYING', 'DEPLOYED'],
    ['UPDATING', 'DEPLOYED', 'UPDATING'],
    ['UPDATING', 'DEPLOYING', 'DEPLOYING'],
    ['READY', 'UPDATING', 'DEPLOYED'],
    ['FAILED', 'DEPLOYED', 'DEPLOYING'],
    ['CREATING', 'DEPLOYING', 'DEPLOYING'],
    ['DELETING', 'DEPLOYED', 'UNDEPLOYING'],
    ['DELETED', 'DEPLOYED', 'remove'],
    [undefined, 'DEPLOYING', 'remove'],
    ['READY', 'UNDEPLOYING', 'UNDEPLOYING'],
  ] as const)('deployment %s, record %s → %s', (deploymentState, current, expected) => {
    expect(deployedModelStateFor(deploymentState, current)).toBe(expected);
  });
});
