import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { memoryStorage } from '../../testing/index.js';
import { ManualClock, createTestGateway, principalContext, type TestGateway } from '../../testing/test-gateway.js';
import { storageToken } from '../../kernel/tokens.js';
import { deploymentDeletionGuardsToken } from '../../services/tokens.js';
import { definePlugin, type GatewayPlugin } from '../../kernel/plugin.js';
import type { RequestContext } from '../../kernel/request-context.js';
import type { JsonObject } from '../../ports/json.js';
import type { DeploymentService } from './deployment-service.js';
import { softDeleteRetentionMs } from './deployment-service.js';
import { expectRejected as rejected } from '../../testing/assertions.js';

const account = 'acme';
const ctx: RequestContext = principalContext(account, 'admin');
const baseName = `accounts/${account}/models/base`;
const draftName = `accounts/${account}/models/draft`;
const nameOf = (id: string) => `accounts/${account}/deployments/${id}`;

let tg: TestGateway;
let deployments: DeploymentService;
let clock: ManualClock;

async function startGateway(plugins: GatewayPlugin[] = []): Promise<void> {
  tg = await createTestGateway({ plugins: [memoryStorage(), ...plugins], clock });
  deployments = tg.services.deployments;
  // The base model's default draft model must exist (references are checked).
  await tg.services.models.create(ctx, account, { kind: 'HUB_BASE_MODEL', baseModelDetails: {} }, 'draft');
  await tg.services.models.create(
    ctx,
    account,
    {
      kind: 'HUB_BASE_MODEL',
      baseModelDetails: { worldSize: 2, modelType: 'llama', parameterCount: '8000000000' },
      defaultDraftModel: draftName,
      defaultDraftTokenCount: 4,
    },
    'base',
  );
}

beforeEach(async () => {
  clock = new ManualClock();
  await startGateway();
});

afterEach(async () => {
  await tg.stop();
});

const create = (id: string, body: JsonObject = {}) => {
  clock.advance(1000);
  return deployments.create(ctx, account, { baseModel: baseName, ...body }, { deploymentId: id });
};

describe('baseModel', () => {
  it('is required', async () => {
    expect((await rejected(deployments.create(ctx, account, {}, { deploymentId: 'd' }))).field).toBe('baseModel');
  });

  it('must exist', async () => {
    expect((await rejected(create('d', { baseModel: `accounts/${account}/models/missing` }))).field).toBe('baseModel');
  });

  it('must be in the same account', async () => {
    await tg.services.models.create(principalContext('other', 'admin'), 'other', { kind: 'HUB_BASE_MODEL', baseModelDetails: {} }, 'theirs');
    expect((await rejected(create('d', { baseModel: 'accounts/other/models/theirs' }), 'PERMISSION_DENIED')).message).toBe('permission denied on accounts/other');
  });

  it('must be deployable (not an add-on)', async () => {
    await tg.services.models.create(ctx, account, { peftDetails: { baseModel: baseName, r: 8, targetModules: ['q'] } }, 'addon');
    const error = await rejected(create('d', { baseModel: `accounts/${account}/models/addon` }));
    expect(error.field).toBe('baseModel');
    expect(error.message).toContain('HUB_PEFT_ADDON');
  });

  it('must be READY', async () => {
    const storage = tg.gateway.resolve(storageToken);
    const stored = await storage.resources.get(ctx, baseName);
    await storage.resources.update(ctx, baseName, { ...stored!.data, state: 'UPLOADING' }, stored!.etag);
    const error = await rejected(create('d'), 'FAILED_PRECONDITION');
    expect(error.message).toContain('UPLOADING');
  });
});

describe('defaults', () => {
  it('fills replica, autoscaling, placement and serving defaults', async () => {
    const created = await create('d');
    expect(created).toMatchObject({
      name: nameOf('d'),
      state: 'CREATING',
      minReplicaCount: 0,
      maxReplicaCount: 1,
      replicaCount: 0,
      autoscalingPolicy: { scaleUpWindow: '30s', scaleDownWindow: '600s', scaleToZeroWindow: '3600s' },
      placement: { multiRegion: 'GLOBAL' },
      region: 'REGION_UNSPECIFIED',
      acceleratorType: 'GPUX_A100_80GB',
      acceleratorCount: 2,
      draftModel: draftName,
      draftTokenCount: 4,
    });
    expect(await deployments.get(ctx, nameOf('d'))).toEqual(created);
  });

  it('maxReplicaCount defaults to max(min, 1)', async () => {
    expect(await create('a', { minReplicaCount: 3 })).toMatchObject({ minReplicaCount: 3, maxReplicaCount: 3 });
    expect(await create('b', { minReplicaCount: 0 })).toMatchObject({ minReplicaCount: 0, maxReplicaCount: 1 });
    expect(await create('c', { maxReplicaCount: 5 })).toMatchObject({ minReplicaCount: 0, maxReplicaCount: 5 });
  });

  it('rejects maxReplicaCount below minReplicaCount', async () => {
    expect((await rejected(create('d', { minReplicaCount: 3, maxReplicaCount: 2 }))).field).toBe('maxReplicaCount');
  });

  it('accepts maxReplicaCount equal to minReplicaCount', async () => {
    expect(await create('d', { minReplicaCount: 2, maxReplicaCount: 2 })).toMatchObject({ minReplicaCount: 2, maxReplicaCount: 2 });
  });

  it('rejects negative or non-integer replica counts', async () => {
    expect((await rejected(create('d', { minReplicaCount: -1 }))).field).toBe('minReplicaCount');
    expect((await rejected(create('e', { maxReplicaCount: '2' }))).field).toBe('maxReplicaCount');
  });

  it('fills missing autoscaling windows and keeps given ones', async () => {
    const created = await create('d', { autoscalingPolicy: { scaleUpWindow: '10s', loadTargets: { default: 0.8 } } });
    expect(created.autoscalingPolicy).toEqual({ scaleUpWindow: '10s', scaleDownWindow: '600s', scaleToZeroWindow: '3600s', loadTargets: { default: 0.8 } });
  });

  it('scaleToZeroWindow below 300s is rejected, 300s accepted', async () => {
    expect((await rejected(create('d', { autoscalingPolicy: { scaleToZeroWindow: '299s' } }))).field).toBe('autoscalingPolicy.scaleToZeroWindow');
    expect((await rejected(create('e', { autoscalingPolicy: { scaleToZeroWindow: '299.5s' } }))).field).toBe('autoscalingPolicy.scaleToZeroWindow');
    expect((await create('f', { autoscalingPolicy: { scaleToZeroWindow: '300s' } })).autoscalingPolicy).toMatchObject({ scaleToZeroWindow: '300s' });
  });

  it('a window that is not a duration string is rejected', async () => {
    expect((await rejected(create('d', { autoscalingPolicy: { scaleUpWindow: '30' } }))).field).toBe('autoscalingPolicy.scaleUpWindow');
    expect((await rejected(create('e', { autoscalingPolicy: { scaleUpWindow: 30 } }))).field).toBe('autoscalingPolicy.scaleUpWindow');
  });

  it('placement takes exactly one of region, multiRegion, regions', async () => {
    expect(await create('r', { placement: { region: 'US_IOWA_1' } })).toMatchObject({ placement: { region: 'US_IOWA_1' }, region: 'US_IOWA_1' });
    expect(await create('m', { placement: { multiRegion: 'EUROPE' } })).toMatchObject({ placement: { multiRegion: 'EUROPE' } });
    expect(await create('l', { placement: { regions: ['US_IOWA_1', 'EU_PARIS_1'] } })).toMatchObject({ placement: { regions: ['US_IOWA_1', 'EU_PARIS_1'] } });
    expect((await rejected(create('x', { placement: { region: 'US_IOWA_1', multiRegion: 'US' } }))).field).toBe('placement');
    expect((await rejected(create('y', { placement: { region: 'US_IOWA_1', regions: ['US_IOWA_1'] } }))).field).toBe('placement');
    expect((await rejected(create('z', { placement: { regions: [] } }))).field).toBe('placement.regions');
    expect((await rejected(create('w', { placement: { region: 'MARS_1' } }))).field).toBe('placement.region');
  });

  it('expireTime must be in the future', async () => {
    expect((await rejected(create('d', { expireTime: new Date(clock.now().getTime() - 1000).toISOString() }))).field).toBe('expireTime');
    const future = new Date(clock.now().getTime() + 86_400_000).toISOString();
    expect((await create('e', { expireTime: future })).expireTime).toBe(future);
  });

  it('an empty placement defaults to multiRegion GLOBAL', async () => {
    expect((await create('d', { placement: {} })).placement).toEqual({ multiRegion: 'GLOBAL' });
  });

  it('output-only fields in the body are ignored', async () => {
    const created = await create('d', { state: 'READY', replicaCount: 9, deleteTime: '2020-01-01T00:00:00Z', region: 'US_IOWA_1' });
    expect(created.state).toBe('CREATING');
    expect(created.replicaCount).toBe(0);
    expect(created.deleteTime).toBeUndefined();
    expect(created.region).toBe('REGION_UNSPECIFIED');
  });

  it('unknown fields are rejected, also nested', async () => {
    expect((await rejected(create('d', { colour: 'red' }))).field).toBe('colour');
    expect((await rejected(create('e', { autoscalingPolicy: { colour: 'red' } }))).field).toBe('autoscalingPolicy.colour');
  });

  it('a duplicate id is ALREADY_EXISTS', async () => {
    await create('d');
    await rejected(create('d'), 'ALREADY_EXISTS');
  });
});

describe('deploymentShape', () => {
  beforeEach(async () => {
    await tg.services.deploymentShapes.create(ctx, account, { baseModel: baseName, acceleratorType: 'GPUX_H100_80GB', acceleratorCount: 4, enableAddons: true }, 'shape');
  });
  const shapeName = `accounts/${account}/deploymentShapes/shape`;

  it('fills fields from the shape, including the base model', async () => {
    clock.advance(1000);
    const created = await deployments.create(ctx, account, { deploymentShape: shapeName }, { deploymentId: 'd' });
    expect(created).toMatchObject({
      baseModel: baseName,
      deploymentShape: shapeName,
      acceleratorType: 'GPUX_H100_80GB',
      acceleratorCount: 4,
      enableAddons: true,
      draftModel: draftName,
      draftTokenCount: 4,
    });
  });

  it('accepts values equal to the shape’s', async () => {
    await expect(create('d', { deploymentShape: shapeName, acceleratorCount: 4 })).resolves.toMatchObject({ acceleratorCount: 4 });
  });

  it('rejects values that differ from the shape’s', async () => {
    expect((await rejected(create('d', { deploymentShape: shapeName, acceleratorCount: 8 }))).field).toBe('acceleratorCount');
    expect((await rejected(create('e', { deploymentShape: shapeName, acceleratorType: 'GPUX_A100_80GB' }))).field).toBe('acceleratorType');
  });

  it('rejects a base model that differs from the shape’s', async () => {
    await tg.services.models.create(ctx, account, { kind: 'HUB_BASE_MODEL', baseModelDetails: {} }, 'other-base');
    expect((await rejected(create('d', { deploymentShape: shapeName, baseModel: `accounts/${account}/models/other-base` }))).field).toBe('baseModel');
  });

  it('allows mismatches with skipShapeValidation', async () => {
    clock.advance(1000);
    const created = await deployments.create(ctx, account, { deploymentShape: shapeName, baseModel: baseName, acceleratorCount: 8 }, { deploymentId: 'd', skipShapeValidation: true });
    expect(created).toMatchObject({ acceleratorCount: 8, acceleratorType: 'GPUX_H100_80GB' });
  });

  it('rejects a missing shape', async () => {
    expect((await rejected(create('d', { deploymentShape: `accounts/${account}/deploymentShapes/missing` }))).field).toBe('deploymentShape');
  });
});

describe('validateOnly', () => {
  it('answers what would be created and stores nothing', async () => {
    const answer = await deployments.create(ctx, account, { baseModel: baseName }, { deploymentId: 'dry', validateOnly: true });
    expect(answer).toMatchObject({ name: nameOf('dry'), state: 'CREATING', maxReplicaCount: 1 });
    await rejected(deployments.get(ctx, nameOf('dry')), 'NOT_FOUND');
    expect((await deployments.list(ctx, account, { showDeleted: true })).totalSize).toBe(0);
    expect(await tg.gateway.resolve(storageToken).resources.get(ctx, nameOf('dry'))).toBeUndefined();
  });

  it('still validates', async () => {
    await rejected(deployments.create(ctx, account, { baseModel: baseName, minReplicaCount: 2, maxReplicaCount: 1 }, { validateOnly: true }));
  });

  it('reports an existing id', async () => {
    await create('d');
    await rejected(deployments.create(ctx, account, { baseModel: baseName }, { deploymentId: 'd', validateOnly: true }), 'ALREADY_EXISTS');
  });
});

describe('delete and undelete', () => {
  it('soft delete sets DELETED, deleteTime and purgeTime; GET still works; lists hide it unless showDeleted', async () => {
    await create('keep');
    await create('gone');
    const deletedAt = clock.now();
    await deployments.delete(ctx, nameOf('gone'));
    const got = await deployments.get(ctx, nameOf('gone'));
    expect(got.state).toBe('DELETED');
    expect(got.deleteTime).toBe(deletedAt.toISOString());
    expect(got.purgeTime).toBe(new Date(deletedAt.getTime() + softDeleteRetentionMs).toISOString());
    expect(Date.parse(String(got.purgeTime))).toBeGreaterThan(Date.parse(String(got.deleteTime)));

    const visible = await deployments.list(ctx, account, {});
    expect(visible.items.map((d) => d.name)).toEqual([nameOf('keep')]);
    expect(visible.totalSize).toBe(1);
    const all = await deployments.list(ctx, account, { showDeleted: true });
    expect(all.items.map((d) => d.name)).toEqual([nameOf('keep'), nameOf('gone')]);
    expect(all.totalSize).toBe(2);
  });

  it('a second soft delete is NOT_FOUND', async () => {
    await create('d');
    await deployments.delete(ctx, nameOf('d'));
    await rejected(deployments.delete(ctx, nameOf('d')), 'NOT_FOUND');
  });

  it('hard delete removes the record, also after a soft delete', async () => {
    await create('a');
    await create('b');
    await deployments.delete(ctx, nameOf('a'), { hard: true });
    await rejected(deployments.get(ctx, nameOf('a')), 'NOT_FOUND');
    await deployments.delete(ctx, nameOf('b'));
    await deployments.delete(ctx, nameOf('b'), { hard: true });
    await rejected(deployments.get(ctx, nameOf('b')), 'NOT_FOUND');
    expect((await deployments.list(ctx, account, { showDeleted: true })).totalSize).toBe(0);
    await rejected(deployments.delete(ctx, nameOf('b'), { hard: true }), 'NOT_FOUND');
  });

  it('delete of a missing deployment is NOT_FOUND', async () => {
    await rejected(deployments.delete(ctx, nameOf('missing')), 'NOT_FOUND');
  });

  it('undelete moves DELETED → CREATING and clears the delete times', async () => {
    await create('d', { minReplicaCount: 0, maxReplicaCount: 3 });
    await deployments.delete(ctx, nameOf('d'));
    const restored = await deployments.undelete(ctx, nameOf('d'));
    expect(restored.state).toBe('CREATING');
    expect(restored.deleteTime).toBeUndefined();
    expect(restored.purgeTime).toBeUndefined();
    expect((await deployments.list(ctx, account, {})).items.map((d) => d.name)).toEqual([nameOf('d')]);
  });

  it('undelete of a deployment that is not DELETED is FAILED_PRECONDITION', async () => {
    await create('d');
    await rejected(deployments.undelete(ctx, nameOf('d')), 'FAILED_PRECONDITION');
  });

  it('a deleted deployment cannot be updated or scaled', async () => {
    await create('d', { maxReplicaCount: 2 });
    await deployments.delete(ctx, nameOf('d'));
    await rejected(deployments.update(ctx, nameOf('d'), { displayName: 'x' }));
    await rejected(deployments.scale(ctx, nameOf('d'), 1));
  });

  it('consults the deletion guard unless already deleted', async () => {
    const seen: string[] = [];
    const guard = definePlugin({
      id: 'test-deletion-guard',
      register(binder) {
        binder.contribute(deploymentDeletionGuardsToken, {
          check: async (_ctx, deployment, options) => {
            seen.push(`${String(deployment.name)} ignoreChecks=${String(options.ignoreChecks === true)}`);
            if (!options.ignoreChecks) throw Object.assign(new Error('in use'), { code: 'FAILED_PRECONDITION' });
          },
        });
      },
    });
    await tg.stop();
    await startGateway([guard]);
    await create('d');
    await expect(deployments.delete(ctx, nameOf('d'))).rejects.toThrow('in use');
    expect((await deployments.get(ctx, nameOf('d'))).state).toBe('CREATING');
    await deployments.delete(ctx, nameOf('d'), { ignoreChecks: true });
    expect(seen).toEqual([`${nameOf('d')} ignoreChecks=false`, `${nameOf('d')} ignoreChecks=true`]);
  });
});

describe('scale', () => {
  it('sets the desired replica count within [min, max]', async () => {
    await create('d', { minReplicaCount: 1, maxReplicaCount: 3 });
    for (const count of [1, 2, 3]) {
      await deployments.scale(ctx, nameOf('d'), count);
      expect((await deployments.get(ctx, nameOf('d'))).desiredReplicaCount).toBe(count);
    }
  });

  it.each([0, 4, -1, 1.5])('rejects %s outside [1, 3] or not a non-negative integer', async (count) => {
    await create('d', { minReplicaCount: 1, maxReplicaCount: 3 });
    expect((await rejected(deployments.scale(ctx, nameOf('d'), count))).field).toBe('replicaCount');
  });

  it('of a missing deployment is NOT_FOUND', async () => {
    await rejected(deployments.scale(ctx, nameOf('missing'), 1), 'NOT_FOUND');
  });
});

describe('update', () => {
  it('baseModel is immutable', async () => {
    await tg.services.models.create(ctx, account, { kind: 'HUB_BASE_MODEL', baseModelDetails: {} }, 'other-base');
    await create('d');
    expect((await rejected(deployments.update(ctx, nameOf('d'), { baseModel: `accounts/${account}/models/other-base` }))).field).toBe('baseModel');
  });

  it('checks replica bounds on the result', async () => {
    await create('d', { maxReplicaCount: 3 });
    expect((await rejected(deployments.update(ctx, nameOf('d'), { minReplicaCount: 5 }, 'minReplicaCount'))).field).toBe('maxReplicaCount');
    expect((await deployments.update(ctx, nameOf('d'), { minReplicaCount: 2 }, 'minReplicaCount')).minReplicaCount).toBe(2);
  });

  it('placement can be switched by replacing it (mask "placement"); the exactly-one rule still holds', async () => {
    await create('d');
    const updated = await deployments.update(ctx, nameOf('d'), { placement: { region: 'US_IOWA_1' } }, 'placement');
    expect(updated).toMatchObject({ placement: { region: 'US_IOWA_1' }, region: 'US_IOWA_1' });
    expect((await rejected(deployments.update(ctx, nameOf('d'), { placement: { region: 'US_IOWA_1', multiRegion: 'US' } }, 'placement'))).field).toBe('placement');
  });

  it('autoscaling windows are checked on update too', async () => {
    await create('d');
    const error = await rejected(deployments.update(ctx, nameOf('d'), { autoscalingPolicy: { scaleToZeroWindow: '100s' } }, 'autoscalingPolicy.scaleToZeroWindow'));
    expect(error.field).toBe('autoscalingPolicy.scaleToZeroWindow');
    const updated = await deployments.update(ctx, nameOf('d'), { autoscalingPolicy: { scaleDownWindow: '60s' } }, 'autoscalingPolicy.scaleDownWindow');
    expect(updated.autoscalingPolicy).toEqual({ scaleUpWindow: '30s', scaleDownWindow: '60s', scaleToZeroWindow: '3600s' });
  });

  it('a rollout change of a READY deployment moves it to UPDATING', async () => {
    await create('d');
    const storage = tg.gateway.resolve(storageToken);
    const stored = await storage.resources.get(ctx, nameOf('d'));
    await storage.resources.update(ctx, nameOf('d'), { ...stored!.data, state: 'READY' }, stored!.etag);
    expect((await deployments.update(ctx, nameOf('d'), { displayName: 'x' })).state).toBe('READY');
    expect((await deployments.update(ctx, nameOf('d'), { acceleratorCount: 4 })).state).toBe('UPDATING');
  });
});

describe('list', () => {
  beforeEach(async () => {
    // seven deployments with distinct create times; three with 2 accelerators
    for (const [id, count] of [['d1', 1], ['d2', 2], ['d3', 1], ['d4', 2], ['d5', 1], ['d6', 2], ['d7', 1]] as const) {
      await create(id, { acceleratorCount: count, displayName: `name-${8 - Number(id.slice(1))}` });
    }
  });

  async function collect(params: { filter?: string; orderBy?: string; pageSize: number; showDeleted?: boolean }): Promise<{ names: string[]; pages: number; totals: number[] }> {
    const names: string[] = [];
    const totals: number[] = [];
    let pageToken: string | undefined;
    let pages = 0;
    do {
      const page = await deployments.list(ctx, account, { ...params, ...(pageToken ? { pageToken } : {}) });
      pages += 1;
      expect(page.items.length).toBeLessThanOrEqual(params.pageSize);
      names.push(...page.items.map((d) => String(d.name)));
      totals.push(page.totalSize);
      pageToken = page.nextPageToken;
      if (pages > 20) throw new Error('paging does not end');
    } while (pageToken);
    return { names, pages, totals };
  }

  it.each([1, 2, 3])('pages through everything with pageSize %i, no duplicates, default order create_time', async (pageSize) => {
    const { names, pages, totals } = await collect({ pageSize });
    expect(names).toEqual(['d1', 'd2', 'd3', 'd4', 'd5', 'd6', 'd7'].map(nameOf));
    expect(new Set(names).size).toBe(7);
    expect(pages).toBe(Math.ceil(7 / pageSize));
    expect(new Set(totals)).toEqual(new Set([7]));
  });

  it.each([1, 2, 3])('pages with a filter and orderBy (pageSize %i)', async (pageSize) => {
    const { names, totals } = await collect({ pageSize, filter: 'accelerator_count = 2', orderBy: 'display_name' });
    expect(names).toEqual(['d6', 'd4', 'd2'].map(nameOf));
    expect(new Set(totals)).toEqual(new Set([3]));
  });

  it.each([1, 2, 3])('pages descending (pageSize %i)', async (pageSize) => {
    const { names } = await collect({ pageSize, orderBy: 'create_time desc' });
    expect(names).toEqual(['d7', 'd6', 'd5', 'd4', 'd3', 'd2', 'd1'].map(nameOf));
  });

  it('accepts camelCase field paths too', async () => {
    const page = await deployments.list(ctx, account, { filter: 'acceleratorCount = 2', orderBy: 'createTime desc', pageSize: 10 });
    expect(page.items.map((d) => d.name)).toEqual(['d6', 'd4', 'd2'].map(nameOf));
  });

  it('totalSize counts all matches, not the page', async () => {
    const page = await deployments.list(ctx, account, { pageSize: 2 });
    expect(page.items).toHaveLength(2);
    expect(page.totalSize).toBe(7);
    expect(page.nextPageToken).toBeDefined();
  });

  it('omits nextPageToken on the last page', async () => {
    const page = await deployments.list(ctx, account, { pageSize: 7 });
    expect(page.items).toHaveLength(7);
    expect(page.nextPageToken).toBeUndefined();
  });

  it('changing the filter between pages is INVALID_ARGUMENT', async () => {
    const first = await deployments.list(ctx, account, { pageSize: 1, filter: 'accelerator_count = 2' });
    await rejected(deployments.list(ctx, account, { pageSize: 1, filter: 'accelerator_count = 1', pageToken: first.nextPageToken! }));
    await rejected(deployments.list(ctx, account, { pageSize: 1, pageToken: first.nextPageToken! }));
  });

  it('changing orderBy or showDeleted between pages is INVALID_ARGUMENT; changing pageSize is fine', async () => {
    const first = await deployments.list(ctx, account, { pageSize: 1 });
    await rejected(deployments.list(ctx, account, { pageSize: 1, orderBy: 'display_name', pageToken: first.nextPageToken! }));
    await rejected(deployments.list(ctx, account, { pageSize: 1, showDeleted: true, pageToken: first.nextPageToken! }));
    const second = await deployments.list(ctx, account, { pageSize: 3, pageToken: first.nextPageToken! });
    expect(second.items.map((d) => d.name)).toEqual(['d2', 'd3', 'd4'].map(nameOf));
  });

  it('a garbled page token is INVALID_ARGUMENT', async () => {
    await rejected(deployments.list(ctx, account, { pageToken: 'not-a-token' }));
  });

  it('pageSize above 200 is coerced to 200', async () => {
    const page = await deployments.list(ctx, account, { pageSize: 1000 });
    expect(page.items).toHaveLength(7);
    expect(page.nextPageToken).toBeUndefined();
  });

  it('pageSize above 200 really serves at most 200', async () => {
    const storage = tg.gateway.resolve(storageToken);
    const template = (await storage.resources.get(ctx, nameOf('d1')))!.data;
    for (let i = 0; i < 205; i += 1) {
      const name = nameOf(`bulk-${String(i).padStart(3, '0')}`);
      await storage.resources.create(ctx, name, { ...template, name });
    }
    const page = await deployments.list(ctx, account, { pageSize: 500 });
    expect(page.items).toHaveLength(200);
    expect(page.totalSize).toBe(212);
    expect(page.nextPageToken).toBeDefined();
  });

  it('a negative pageSize is INVALID_ARGUMENT', async () => {
    expect((await rejected(deployments.list(ctx, account, { pageSize: -1 }))).field).toBe('pageSize');
  });

  it('an invalid filter or orderBy is INVALID_ARGUMENT', async () => {
    await rejected(deployments.list(ctx, account, { filter: 'colour = "red"' }));
    await rejected(deployments.list(ctx, account, { filter: 'accelerator_count = ' }));
    await rejected(deployments.list(ctx, account, { orderBy: 'colour' }));
  });

  it('a filter on state combines with the hidden-DELETED rule', async () => {
    await deployments.delete(ctx, nameOf('d1'));
    expect((await deployments.list(ctx, account, { filter: 'state = DELETED' })).totalSize).toBe(0);
    expect((await deployments.list(ctx, account, { filter: 'state = DELETED', showDeleted: true })).items.map((d) => d.name)).toEqual([nameOf('d1')]);
    expect((await deployments.list(ctx, account, { filter: 'state = CREATING OR state = DELETED' })).totalSize).toBe(6);
  });

  it('lists only the caller’s account', async () => {
    expect((await deployments.list(principalContext('other', 'admin'), 'other', {})).totalSize).toBe(0);
    await rejected(deployments.list(principalContext('other', 'admin'), account, {}), 'PERMISSION_DENIED');
  });
});

describe('purge of soft-deleted deployments', () => {
  it('is gone for every read after purgeTime, and :undelete no longer works', async () => {
    await create('old');
    await create('young');
    await deployments.delete(ctx, nameOf('old'));
    clock.advance(softDeleteRetentionMs / 2);
    await deployments.delete(ctx, nameOf('young'));
    clock.advance(softDeleteRetentionMs / 2 + 1000);
    await rejected(deployments.get(ctx, nameOf('old')), 'NOT_FOUND');
    expect((await deployments.get(ctx, nameOf('young'))).state).toBe('DELETED');
    const listed = await deployments.list(ctx, account, { showDeleted: true });
    expect(listed.items.map((d) => d.name)).toEqual([nameOf('young')]);
    await rejected(deployments.undelete(ctx, nameOf('old')), 'NOT_FOUND');
    expect((await deployments.undelete(ctx, nameOf('young'))).state).toBe('CREATING');
  });

  it('enqueues a purge job due at purgeTime whose handler removes only a still-expired deployment', async () => {
    const { deploymentPurgeHandler, deploymentPurgeQueue } = await import('./deployment-purge.js');
    await create('gone');
    await create('back');
    await deployments.delete(ctx, nameOf('gone'));
    await deployments.delete(ctx, nameOf('back'));
    await deployments.undelete(ctx, nameOf('back'));
    clock.advance(softDeleteRetentionMs + 1000);
    const storage = tg.gateway.resolve(storageToken);
    const run = async (name: string) => {
      const job = { id: 'j', queue: deploymentPurgeQueue, payload: { name }, state: 'leased' as const, attempt: 1, maxAttempts: 5, runAt: '', leaseExpiresAt: '', workerId: 'w' };
      const jobCtx = { requestId: 'purge', signal: new AbortController().signal, workerId: 'w', resolver: tg.gateway, storage, logger: tg.gateway.logger, commit: async () => { throw new Error('unused'); } };
      return storage.transaction(jobCtx, (tx) => deploymentPurgeHandler(clock).handle(jobCtx, job, tx));
    };
    expect(await run(nameOf('gone'))).toEqual({ purged: true });
    expect(await storage.resources.get(ctx, nameOf('gone'))).toBeUndefined();
    expect(await run(nameOf('back'))).toEqual({ purged: false });
    expect(await storage.resources.get(ctx, nameOf('back'))).toBeDefined();
    const queued = await storage.queue.claim(ctx, deploymentPurgeQueue, 'w', 1000);
    expect(queued?.payload).toMatchObject({ name: expect.stringMatching(/\/deployments\/(gone|back)$/) });
  });
});
