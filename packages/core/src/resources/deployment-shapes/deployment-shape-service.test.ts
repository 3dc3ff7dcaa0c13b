import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { memoryStorage } from '../../testing/index.js';
import { createTestGateway, principalContext, type TestGateway } from '../../testing/test-gateway.js';
import type { RequestContext } from '../../kernel/request-context.js';
import type { JsonObject } from '../../ports/json.js';
import type { DeploymentShapeService } from './deployment-shape-service.js';
import { expectRejected as rejected } from '../../testing/assertions.js';

const account = 'acme';
const ctx: RequestContext = principalContext(account, 'admin');
const baseName = `accounts/${account}/models/base`;
const draftName = `accounts/${account}/models/draft`;

let tg: TestGateway;
let shapes: DeploymentShapeService;

beforeEach(async () => {
  tg = await createTestGateway({ plugins: [memoryStorage()] });
  shapes = tg.services.deploymentShapes;
  // The base model's default draft model must exist (references are checked).
  await tg.services.models.create(ctx, account, { kind: 'HUB_BASE_MODEL', baseModelDetails: {} }, 'draft');
  await tg.services.models.create(ctx, account, { kind: 'HUB_BASE_MODEL', baseModelDetails: {} }, 'other-draft');
  await tg.services.models.create(
    ctx,
    account,
    {
      kind: 'HUB_BASE_MODEL',
      baseModelDetails: { worldSize: 4, modelType: 'llama', parameterCount: '70000000000' },
      defaultDraftModel: draftName,
      defaultDraftTokenCount: 5,
    },
    'base',
  );
  await tg.services.models.create(ctx, account, { kind: 'HUB_BASE_MODEL', baseModelDetails: {} }, 'plain');
});

afterEach(async () => {
  await tg.stop();
});

describe('deployment shape create', () => {
  it('copies modelType and parameterCount and fills serving defaults from the base model', async () => {
    const shape = await shapes.create(ctx, account, { baseModel: baseName }, 'shape');
    expect(shape).toMatchObject({
      name: `accounts/${account}/deploymentShapes/shape`,
      baseModel: baseName,
      modelType: 'llama',
      parameterCount: '70000000000',
      acceleratorType: 'GPUX_A100_80GB',
      acceleratorCount: 4,
      draftModel: draftName,
      draftTokenCount: 5,
    });
    expect(await shapes.get(ctx, `accounts/${account}/deploymentShapes/shape`)).toEqual(shape);
  });

  it('acceleratorCount defaults to a base model worldSize of 1', async () => {
    const shape = await shapes.create(ctx, account, { baseModel: `accounts/${account}/models/plain` });
    expect(shape).toMatchObject({ acceleratorType: 'GPUX_A100_80GB', acceleratorCount: 1 });
    expect(shape.draftModel).toBeUndefined();
    expect(shape.draftTokenCount).toBeUndefined();
    expect(shape.modelType).toBeUndefined();
  });

  it('treats ACCELERATOR_TYPE_UNSPECIFIED as absent', async () => {
    expect((await shapes.create(ctx, account, { baseModel: baseName, acceleratorType: 'ACCELERATOR_TYPE_UNSPECIFIED' })).acceleratorType).toBe('GPUX_A100_80GB');
  });

  it('keeps values the caller gives', async () => {
    const shape = await shapes.create(ctx, account, {
      baseModel: baseName,
      acceleratorType: 'GPUX_H100_80GB',
      acceleratorCount: 8,
      draftModel: `accounts/${account}/models/other-draft`,
      draftTokenCount: 3,
      modelType: 'custom',
    });
    expect(shape).toMatchObject({ acceleratorType: 'GPUX_H100_80GB', acceleratorCount: 8, draftModel: `accounts/${account}/models/other-draft`, draftTokenCount: 3, modelType: 'custom' });
  });

  it('an explicitly empty draftModel disables the default draft model', async () => {
    const shape = await shapes.create(ctx, account, { baseModel: baseName, draftModel: '' });
    expect(shape.draftModel).toBe('');
    expect(shape.draftTokenCount).toBeUndefined();
  });

  it('a draftModel without a token count takes the base model’s count', async () => {
    const shape = await shapes.create(ctx, account, { baseModel: baseName, draftModel: `accounts/${account}/models/other-draft` });
    expect(shape.draftTokenCount).toBe(5);
  });

  it('a draftModel without any token count is rejected', async () => {
    const error = await rejected(shapes.create(ctx, account, { baseModel: `accounts/${account}/models/plain`, draftModel: draftName }));
    expect(error.field).toBe('draftTokenCount');
  });

  it('baseModel is required', async () => {
    expect((await rejected(shapes.create(ctx, account, {}))).field).toBe('baseModel');
  });

  it('baseModel must exist', async () => {
    expect((await rejected(shapes.create(ctx, account, { baseModel: `accounts/${account}/models/missing` }))).field).toBe('baseModel');
  });

  it('baseModel must be in the same account, whether or not it exists there', async () => {
    await tg.services.models.create(principalContext('other', 'admin'), 'other', { kind: 'HUB_BASE_MODEL', baseModelDetails: {} }, 'theirs');
    const existing = await rejected(shapes.create(ctx, account, { baseModel: 'accounts/other/models/theirs' }), 'PERMISSION_DENIED');
    const missing = await rejected(shapes.create(ctx, account, { baseModel: 'accounts/other/models/nothing' }), 'PERMISSION_DENIED');
    expect(existing.message).toBe('permission denied on accounts/other');
    expect(existing.message).toBe(missing.message);
  });

  it('baseModel must be a model resource name', async () => {
    expect((await rejected(shapes.create(ctx, account, { baseModel: `accounts/${account}/datasets/base` }))).field).toBe('baseModel');
  });

  it('is strict: unknown fields, wrong types and long names are rejected', async () => {
    expect((await rejected(shapes.create(ctx, account, { baseModel: baseName, colour: 'red' }))).field).toBe('colour');
    expect((await rejected(shapes.create(ctx, account, { baseModel: baseName, acceleratorCount: '2' }))).field).toBe('acceleratorCount');
    expect((await rejected(shapes.create(ctx, account, { baseModel: baseName, parameterCount: 7 }))).field).toBe('parameterCount');
    expect((await rejected(shapes.create(ctx, account, { baseModel: baseName, displayName: 'x'.repeat(64) }))).field).toBe('displayName');
    expect((await rejected(shapes.create(ctx, account, { baseModel: baseName, description: 'x'.repeat(1000) }))).field).toBe('description');
    expect((await rejected(shapes.create(ctx, account, { baseModel: baseName, acceleratorType: 'GPUZ_1' }))).field).toBe('acceleratorType');
  });
});

describe('deployment shape update and delete', () => {
  it('baseModel is immutable', async () => {
    await shapes.create(ctx, account, { baseModel: baseName }, 'shape');
    const error = await rejected(shapes.update(ctx, `accounts/${account}/deploymentShapes/shape`, { baseModel: `accounts/${account}/models/plain` }));
    expect(error.field).toBe('baseModel');
  });

  it('updates masked fields only', async () => {
    await shapes.create(ctx, account, { baseModel: baseName, displayName: 'Old', enableAddons: true }, 'shape');
    const updated = await shapes.update(ctx, `accounts/${account}/deploymentShapes/shape`, { displayName: 'New', enableAddons: false } as JsonObject, 'displayName');
    expect(updated).toMatchObject({ displayName: 'New', enableAddons: true, acceleratorCount: 4 });
  });

  it('delete removes the shape', async () => {
    await shapes.create(ctx, account, { baseModel: baseName }, 'shape');
    await shapes.delete(ctx, `accounts/${account}/deploymentShapes/shape`);
    await rejected(shapes.get(ctx, `accounts/${account}/deploymentShapes/shape`), 'NOT_FOUND');
  });

  it('lists shapes with a filter', async () => {
    await shapes.create(ctx, account, { baseModel: baseName }, 'a');
    await shapes.create(ctx, account, { baseModel: `accounts/${account}/models/plain` }, 'b');
    const page = await shapes.list(ctx, account, { filter: `base_model = "${baseName}"` });
    expect(page.items.map((s) => s.name)).toEqual([`accounts/${account}/deploymentShapes/a`]);
    expect(page.totalSize).toBe(1);
  });
});
