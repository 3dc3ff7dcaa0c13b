import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { memoryStorage } from '../../testing/index.js';
import { createTestGateway, principalContext, type TestGateway } from '../../testing/test-gateway.js';
import { storageToken } from '../../kernel/tokens.js';
import type { RequestContext } from '../../kernel/request-context.js';
import type { JsonObject } from '../../ports/json.js';
import type { ModelService } from './model-service.js';
import { expectRejected as rejected } from '../../testing/assertions.js';

const account = 'acme';
const ctx: RequestContext = principalContext(account, 'admin');
const baseName = `accounts/${account}/models/base`;
/** The models every test starts with (what add-ons and draft settings refer to). */
const referenced = new Set([baseName, `accounts/${account}/models/draft`]);

let tg: TestGateway;
let models: ModelService;

beforeEach(async () => {
  tg = await createTestGateway({ plugins: [memoryStorage()] });
  models = tg.services.models;
  // What the add-ons and draft settings below refer to (references must exist).
  await models.create(ctx, account, { kind: 'CUSTOM_MODEL' }, 'base');
  await models.create(ctx, account, { kind: 'CUSTOM_MODEL' }, 'draft');
});

afterEach(async () => {
  await tg.stop();
});

const peft = (extra: JsonObject = {}): JsonObject => ({ baseModel: baseName, r: 8, targetModules: ['q_proj'], ...extra });
const baseModel = (details: JsonObject = {}, extra: JsonObject = {}): JsonObject => ({ kind: 'HUB_BASE_MODEL', baseModelDetails: details, ...extra });

describe('kind', () => {
  it('defaults to HUB_PEFT_ADDON', async () => {
    const created = await models.create(ctx, account, { peftDetails: peft() }, 'addon');
    expect(created.kind).toBe('HUB_PEFT_ADDON');
    expect(created.name).toBe(`accounts/${account}/models/addon`);
    expect(created.state).toBe('READY');
  });

  it('treats KIND_UNSPECIFIED as the default', async () => {
    expect((await models.create(ctx, account, { kind: 'KIND_UNSPECIFIED', peftDetails: peft() })).kind).toBe('HUB_PEFT_ADDON');
  });

  it('so an empty body needs peftDetails', async () => {
    expect((await rejected(models.create(ctx, account, {}))).field).toBe('peftDetails');
  });

  it('rejects an unknown kind', async () => {
    expect((await rejected(models.create(ctx, account, { kind: 'SOMETHING' }))).field).toBe('kind');
  });
});

describe('baseModelDetails: required iff HUB_BASE_MODEL', () => {
  it('is required for HUB_BASE_MODEL', async () => {
    expect((await rejected(models.create(ctx, account, { kind: 'HUB_BASE_MODEL' }))).field).toBe('baseModelDetails');
  });
  it.each(['HUB_PEFT_ADDON', 'CUSTOM_MODEL', 'DRAFT_ADDON', 'EMBEDDING_MODEL'])('must not be set for %s', async (kind) => {
    const body = { kind, baseModelDetails: {}, ...(kind === 'HUB_PEFT_ADDON' ? { peftDetails: peft() } : {}) };
    expect((await rejected(models.create(ctx, account, body))).field).toBe('baseModelDetails');
  });
  it('worldSize defaults to 1 and a given worldSize is kept', async () => {
    expect((await models.create(ctx, account, baseModel()))).toMatchObject({ baseModelDetails: { worldSize: 1 } });
    expect((await models.create(ctx, account, baseModel({ worldSize: 4 })))).toMatchObject({ baseModelDetails: { worldSize: 4 } });
  });
  it('worldSize below 1 is rejected', async () => {
    expect((await rejected(models.create(ctx, account, baseModel({ worldSize: 0 })))).field).toBe('baseModelDetails.worldSize');
  });
});

describe('peftDetails and teftDetails', () => {
  it.each(['HUB_PEFT_ADDON', 'HUB_TEFT_ADDON'])('peftDetails is required for %s', async (kind) => {
    const body = { kind, ...(kind === 'HUB_TEFT_ADDON' ? { teftDetails: {} } : {}) };
    expect((await rejected(models.create(ctx, account, body))).field).toBe('peftDetails');
  });
  it('teftDetails is required for HUB_TEFT_ADDON', async () => {
    expect((await rejected(models.create(ctx, account, { kind: 'HUB_TEFT_ADDON', peftDetails: peft() }))).field).toBe('teftDetails');
  });
  it('HUB_TEFT_ADDON with peftDetails and teftDetails is accepted', async () => {
    expect((await models.create(ctx, account, { kind: 'HUB_TEFT_ADDON', peftDetails: peft(), teftDetails: {} })).kind).toBe('HUB_TEFT_ADDON');
  });
  it.each(['HUB_PEFT_ADDON', 'HUB_BASE_MODEL', 'CUSTOM_MODEL'])('teftDetails must not be set for %s', async (kind) => {
    const body: JsonObject = { kind, teftDetails: {} };
    if (kind === 'HUB_PEFT_ADDON') body.peftDetails = peft();
    if (kind === 'HUB_BASE_MODEL') body.baseModelDetails = {};
    expect((await rejected(models.create(ctx, account, body))).field).toBe('teftDetails');
  });
  it('teftDetails has no fields', async () => {
    const error = await rejected(models.create(ctx, account, { kind: 'HUB_TEFT_ADDON', peftDetails: peft(), teftDetails: { x: 1 } }));
    expect(error.field).toBe('teftDetails.x');
  });
  it.each(['baseModel', 'r', 'targetModules'])('peftDetails.%s is required', async (field) => {
    const details = peft();
    delete details[field];
    const error = await rejected(models.create(ctx, account, { peftDetails: details }));
    expect(error.field).toBe(`peftDetails.${field}`);
  });
  it('peftDetails.baseModel must be a model resource name', async () => {
    const error = await rejected(models.create(ctx, account, { peftDetails: peft({ baseModel: 'llama' }) }));
    expect(error.field).toBe('peftDetails.baseModel');
  });
  it.each([4, 64, 16])('accepts r = %i', async (r) => {
    expect((await models.create(ctx, account, { peftDetails: peft({ r }) })).peftDetails).toMatchObject({ r });
  });
  it.each([3, 65, 0, -4])('rejects r = %i', async (r) => {
    expect((await rejected(models.create(ctx, account, { peftDetails: peft({ r }) }))).field).toBe('peftDetails.r');
  });
  it('rejects r given as a string', async () => {
    expect((await rejected(models.create(ctx, account, { peftDetails: peft({ r: '8' }) }))).field).toBe('peftDetails.r');
  });
});

describe('hubFiles iff checkpointFormat HUB', () => {
  it('HUB with files is accepted', async () => {
    const created = await models.create(ctx, account, baseModel({ checkpointFormat: 'HUB', hubFiles: ['model.safetensors'] }));
    expect(created.baseModelDetails).toMatchObject({ checkpointFormat: 'HUB', hubFiles: ['model.safetensors'] });
  });
  it('HUB without files is rejected', async () => {
    expect((await rejected(models.create(ctx, account, baseModel({ checkpointFormat: 'HUB' })))).field).toBe('baseModelDetails.hubFiles');
    expect((await rejected(models.create(ctx, account, baseModel({ checkpointFormat: 'HUB', hubFiles: [] })))).field).toBe('baseModelDetails.hubFiles');
  });
  it.each(['NATIVE', 'UNINITIALIZED', 'CHECKPOINT_FORMAT_UNSPECIFIED', undefined])('files with checkpointFormat %s are rejected', async (format) => {
    const details: JsonObject = { hubFiles: ['a.bin'] };
    if (format !== undefined) details.checkpointFormat = format;
    expect((await rejected(models.create(ctx, account, baseModel(details)))).field).toBe('baseModelDetails.hubFiles');
  });
  it('NATIVE without files is accepted', async () => {
    await expect(models.create(ctx, account, baseModel({ checkpointFormat: 'NATIVE' }))).resolves.toBeDefined();
  });
});

describe('defaultDraftModel and defaultDraftTokenCount', () => {
  it('defaultDraftTokenCount must be given with defaultDraftModel', async () => {
    const error = await rejected(models.create(ctx, account, baseModel({}, { defaultDraftModel: `accounts/${account}/models/draft` })));
    expect(error.field).toBe('defaultDraftTokenCount');
  });
  it('both together are accepted', async () => {
    const created = await models.create(ctx, account, baseModel({}, { defaultDraftModel: `accounts/${account}/models/draft`, defaultDraftTokenCount: 4 }));
    expect(created).toMatchObject({ defaultDraftModel: `accounts/${account}/models/draft`, defaultDraftTokenCount: 4 });
  });
  it('defaultDraftModel must be a model resource name', async () => {
    const error = await rejected(models.create(ctx, account, baseModel({}, { defaultDraftModel: 'draft', defaultDraftTokenCount: 4 })));
    expect(error.field).toBe('defaultDraftModel');
  });
});

describe('deprecationDate', () => {
  it.each([
    [{ year: 2024, month: 2, day: 29 }],
    [{ year: 0, month: 2, day: 29 }],
    [{ year: 2030, month: 12, day: 31 }],
  ])('accepts %j', async (date) => {
    expect((await models.create(ctx, account, baseModel({}, { deprecationDate: date }))).deprecationDate).toEqual(date);
  });
  it.each([
    [{ year: 2023, month: 2, day: 29 }],
    [{ year: 2025, month: 4, day: 31 }],
    [{ year: 2025, month: 13, day: 1 }],
    [{ year: 10000, month: 1, day: 1 }],
    [{ year: 2025, month: 1, day: 32 }],
    [{ year: 2025, day: 3 }],
  ])('rejects %j', async (date) => {
    expect((await rejected(models.create(ctx, account, baseModel({}, { deprecationDate: date })))).field).toMatch(/^deprecationDate/);
  });
});

describe('lengths and int64', () => {
  it('displayName: 63 characters accepted, 64 rejected', async () => {
    await expect(models.create(ctx, account, baseModel({}, { displayName: 'd'.repeat(63) }))).resolves.toMatchObject({ displayName: 'd'.repeat(63) });
    expect((await rejected(models.create(ctx, account, baseModel({}, { displayName: 'd'.repeat(64) })))).field).toBe('displayName');
  });
  it('description: 999 characters accepted, 1000 rejected', async () => {
    await expect(models.create(ctx, account, baseModel({}, { description: 'd'.repeat(999) }))).resolves.toBeDefined();
    expect((await rejected(models.create(ctx, account, baseModel({}, { description: 'd'.repeat(1000) })))).field).toBe('description');
  });
  it('parameterCount is an int64 carried as a string', async () => {
    const created = await models.create(ctx, account, baseModel({ parameterCount: '70000000000' }));
    expect(created.baseModelDetails).toMatchObject({ parameterCount: '70000000000' });
  });
  it.each([[70000000000], ['7e10'], ['seven'], ['1.5']])('parameterCount %j is rejected', async (value) => {
    expect((await rejected(models.create(ctx, account, baseModel({ parameterCount: value })))).field).toBe('baseModelDetails.parameterCount');
  });
  it('contextLength given as a string is rejected (no coercion)', async () => {
    expect((await rejected(models.create(ctx, account, baseModel({}, { contextLength: '4096' })))).field).toBe('contextLength');
  });
  it('an unknown field is rejected naming it, also nested', async () => {
    expect((await rejected(models.create(ctx, account, baseModel({}, { colour: 'red' })))).field).toBe('colour');
    expect((await rejected(models.create(ctx, account, baseModel({ colour: 'red' })))).field).toBe('baseModelDetails.colour');
  });
  it('output-only fields are ignored', async () => {
    const created = await models.create(
      ctx,
      account,
      baseModel({ defaultPrecision: 'FP8' }, { name: 'accounts/other/models/x', state: 'UPLOADING', createTime: 'yesterday', calibrated: true, deployedModelRefs: [{ name: 'x' }] }),
      'clean',
    );
    expect(created.name).toBe(`accounts/${account}/models/clean`);
    expect(created.state).toBe('READY');
    expect(created.calibrated).toBeUndefined();
    expect(created.deployedModelRefs).toBeUndefined();
    expect(Date.parse(String(created.createTime))).not.toBeNaN();
    expect(created.baseModelDetails).toEqual({ worldSize: 1 });
  });
});

describe('ids and duplicates', () => {
  it('rejects a duplicate id with ALREADY_EXISTS', async () => {
    await models.create(ctx, account, baseModel(), 'dup');
    await rejected(models.create(ctx, account, baseModel(), 'dup'), 'ALREADY_EXISTS');
  });
  it('rejects an invalid id', async () => {
    expect((await rejected(models.create(ctx, account, baseModel(), 'Bad_Id'))).field).toBe('modelId');
  });
  it('generates a valid id when none is given', async () => {
    const created = await models.create(ctx, account, baseModel());
    expect(String(created.name)).toMatch(/^accounts\/acme\/models\/[a-z0-9][a-z0-9-]{0,61}[a-z0-9]?$/);
  });
  it('get of a missing model is NOT_FOUND', async () => {
    await rejected(models.get(ctx, `accounts/${account}/models/missing`), 'NOT_FOUND');
  });
});

describe('readMask', () => {
  it('get returns only the masked fields plus name', async () => {
    await models.create(ctx, account, baseModel({ worldSize: 2 }, { displayName: 'Base', description: 'd' }), 'masked');
    const got = await models.get(ctx, `accounts/${account}/models/masked`, 'displayName,baseModelDetails.worldSize');
    expect(got).toEqual({ name: `accounts/${account}/models/masked`, displayName: 'Base', baseModelDetails: { worldSize: 2 } });
  });
  it('"*" and empty return everything', async () => {
    await models.create(ctx, account, baseModel({}, { displayName: 'Base' }), 'all');
    const full = await models.get(ctx, `accounts/${account}/models/all`);
    expect(await models.get(ctx, `accounts/${account}/models/all`, '*')).toEqual(full);
    expect(await models.get(ctx, `accounts/${account}/models/all`, '')).toEqual(full);
  });
  it('snake_case paths work', async () => {
    await models.create(ctx, account, baseModel({}, { displayName: 'Base' }), 'snake');
    expect(await models.get(ctx, `accounts/${account}/models/snake`, 'display_name,create_time')).toEqual({
      name: `accounts/${account}/models/snake`,
      displayName: 'Base',
      createTime: expect.any(String),
    });
  });
  it('list applies the mask to every item', async () => {
    await models.create(ctx, account, baseModel({}, { displayName: 'One' }), 'one');
    await models.create(ctx, account, baseModel({}, { displayName: 'Two' }), 'two');
    const page = await models.list(ctx, account, { readMask: 'displayName' });
    expect(page.items.filter((m) => !referenced.has(String(m.name)))).toEqual([
      { name: `accounts/${account}/models/one`, displayName: 'One' },
      { name: `accounts/${account}/models/two`, displayName: 'Two' },
    ]);
  });
  it('an unknown field in the mask is INVALID_ARGUMENT', async () => {
    await models.create(ctx, account, baseModel(), 'm');
    await rejected(models.get(ctx, `accounts/${account}/models/m`, 'colour'));
  });
});

describe('update', () => {
  const name = `accounts/${account}/models/upd`;
  beforeEach(async () => {
    await models.create(ctx, account, baseModel({ parameterCount: '100' }, { displayName: 'Old', description: 'old description', contextLength: 2048 }), 'upd');
  });

  it('with updateMask only the masked fields change', async () => {
    const updated = await models.update(ctx, name, { displayName: 'New', description: 'new description' }, 'displayName');
    expect(updated.displayName).toBe('New');
    expect(updated.description).toBe('old description');
    expect(updated.contextLength).toBe(2048);
  });

  it('a masked field absent from the body is cleared', async () => {
    const updated = await models.update(ctx, name, {}, 'description');
    expect(updated.description).toBeUndefined();
    expect(updated.displayName).toBe('Old');
  });

  it('without updateMask every field given is replaced and the others kept', async () => {
    const updated = await models.update(ctx, name, { description: 'replaced' });
    expect(updated).toMatchObject({ displayName: 'Old', description: 'replaced', contextLength: 2048 });
  });

  it('rejects a change of an immutable field', async () => {
    expect((await rejected(models.update(ctx, name, { kind: 'CUSTOM_MODEL' }))).field).toBe('kind');
    expect((await rejected(models.update(ctx, name, { baseModelDetails: { parameterCount: '200' } }, 'baseModelDetails.parameterCount'))).field).toBe(
      'baseModelDetails.parameterCount',
    );
  });

  it('accepts an immutable field given with its current value', async () => {
    await expect(models.update(ctx, name, { kind: 'HUB_BASE_MODEL', displayName: 'Same kind' })).resolves.toMatchObject({ displayName: 'Same kind' });
  });

  it('ignores output-only fields in the body and keeps createTime', async () => {
    const before = await models.get(ctx, name);
    const updated = await models.update(ctx, name, { state: 'UPLOADING', createTime: '2000-01-01T00:00:00Z', displayName: 'X' });
    expect(updated.state).toBe('READY');
    expect(updated.createTime).toBe(before.createTime);
    expect(updated.updateTime).toBeDefined();
  });

  it('applies the model rules to the result', async () => {
    expect((await rejected(models.update(ctx, name, { displayName: 'd'.repeat(64) }))).field).toBe('displayName');
    expect((await rejected(models.update(ctx, name, { defaultDraftModel: `accounts/${account}/models/d` }))).field).toBe('defaultDraftTokenCount');
  });

  it('rejects a body name different from the path', async () => {
    expect((await rejected(models.update(ctx, name, { name: `accounts/${account}/models/other` }))).field).toBe('name');
  });

  it('rejects an unknown updateMask path, naming the updateMask parameter', async () => {
    const error = await rejected(models.update(ctx, name, {}, 'colour'));
    expect(error.field).toBe('updateMask');
    expect(error.message).toContain('updateMask');
  });

  it('rejects wrong types and unknown fields in a masked PATCH body', async () => {
    expect((await rejected(models.update(ctx, name, { contextLength: '4096' }, 'contextLength'))).field).toBe('contextLength');
    expect((await rejected(models.update(ctx, name, { colour: 'red' }, 'displayName'))).field).toBe('colour');
  });

  it('of a missing model is NOT_FOUND', async () => {
    await rejected(models.update(ctx, `accounts/${account}/models/missing`, { displayName: 'x' }), 'NOT_FOUND');
  });
});

describe('update of nested fields with a mask', () => {
  const name = `accounts/${account}/models/addon`;
  beforeEach(async () => {
    await models.create(ctx, account, { peftDetails: peft({ r: 8 }), displayName: 'Addon' }, 'addon');
  });

  it('a masked nested field may be sent alone (the rest of its object is kept)', async () => {
    const updated = await models.update(ctx, name, { peftDetails: { r: 16 } }, 'peftDetails.r');
    expect(updated.peftDetails).toEqual(peft({ r: 16 }));
    expect(updated.displayName).toBe('Addon');
  });

  it('the nested rules still apply to the merged value', async () => {
    expect((await rejected(models.update(ctx, name, { peftDetails: { r: 65 } }, 'peftDetails.r'))).field).toBe('peftDetails.r');
  });

  it('replacing the whole object with a mask needs its required fields', async () => {
    expect((await rejected(models.update(ctx, name, { peftDetails: { r: 16 } }, 'peftDetails'))).field).toMatch(/^peftDetails\./);
    const replaced = await models.update(ctx, name, { peftDetails: peft({ r: 32, targetModules: ['v_proj'] }) }, 'peftDetails');
    expect(replaced.peftDetails).toEqual(peft({ r: 32, targetModules: ['v_proj'] }));
  });

  it('the immutable peftDetails.baseModel cannot change through a mask', async () => {
    const error = await rejected(models.update(ctx, name, { peftDetails: { baseModel: `accounts/${account}/models/other` } }, 'peftDetails.baseModel'));
    expect(error.field).toBe('peftDetails.baseModel');
  });

  it('without a mask the body must be complete', async () => {
    expect((await rejected(models.update(ctx, name, { peftDetails: { r: 16 } }))).field).toMatch(/^peftDetails\./);
  });
});

describe('deployedModelRefs', () => {
  it('appear on the single GET only, the first marked default', async () => {
    await models.create(ctx, account, baseModel(), 'served');
    await models.create(ctx, account, baseModel(), 'unserved');
    const storage = tg.gateway.resolve(storageToken);
    const modelName = `accounts/${account}/models/served`;
    await storage.resources.create(ctx, `accounts/${account}/deployedModels/dm-1`, {
      name: `accounts/${account}/deployedModels/dm-1`,
      model: modelName,
      deployment: `accounts/${account}/deployments/d1`,
      state: 'DEPLOYED',
      default: true,
      public: false,
      createTime: '2026-01-01T00:00:00.000Z',
    });
    await storage.resources.create(ctx, `accounts/${account}/deployedModels/dm-2`, {
      name: `accounts/${account}/deployedModels/dm-2`,
      model: modelName,
      deployment: `accounts/${account}/deployments/d2`,
      state: 'DEPLOYING',
      createTime: '2026-01-02T00:00:00.000Z',
    });

    const got = await models.get(ctx, modelName);
    expect(got.deployedModelRefs).toEqual([
      { name: `accounts/${account}/deployedModels/dm-1`, deployment: `accounts/${account}/deployments/d1`, state: 'DEPLOYED', default: true, public: false },
      { name: `accounts/${account}/deployedModels/dm-2`, deployment: `accounts/${account}/deployments/d2`, state: 'DEPLOYING', default: false, public: false },
    ]);
    expect((await models.get(ctx, `accounts/${account}/models/unserved`)).deployedModelRefs).toBeUndefined();

    const listed = await models.list(ctx, account, {});
    expect(listed.items.filter((m) => !referenced.has(String(m.name)))).toHaveLength(2);
    for (const item of listed.items) expect(item.deployedModelRefs).toBeUndefined();
    // never stored on the model itself
    expect((await storage.resources.get(ctx, modelName))?.data.deployedModelRefs).toBeUndefined();
  });

  it('respect the readMask of the GET', async () => {
    await models.create(ctx, account, baseModel(), 'served');
    const storage = tg.gateway.resolve(storageToken);
    await storage.resources.create(ctx, `accounts/${account}/deployedModels/dm-1`, {
      name: `accounts/${account}/deployedModels/dm-1`,
      model: `accounts/${account}/models/served`,
      deployment: `accounts/${account}/deployments/d1`,
      state: 'DEPLOYED',
      default: true,
      createTime: '2026-01-01T00:00:00.000Z',
    });
    expect(await models.get(ctx, `accounts/${account}/models/served`, 'displayName')).toEqual({ name: `accounts/${account}/models/served` });
    expect((await models.get(ctx, `accounts/${account}/models/served`, 'deployedModelRefs')).deployedModelRefs).toHaveLength(1);
  });
});

describe('delete and list', () => {
  it('delete removes; a second delete is NOT_FOUND', async () => {
    await models.create(ctx, account, baseModel(), 'gone');
    await models.delete(ctx, `accounts/${account}/models/gone`);
    await rejected(models.get(ctx, `accounts/${account}/models/gone`), 'NOT_FOUND');
    await rejected(models.delete(ctx, `accounts/${account}/models/gone`), 'NOT_FOUND');
  });

  it('list filters by kind and reports totalSize', async () => {
    await models.create(ctx, account, baseModel(), 'b1');
    await models.create(ctx, account, { peftDetails: peft() }, 'p1');
    const page = await models.list(ctx, account, { filter: 'kind = HUB_BASE_MODEL' });
    expect(page.items.map((m) => m.name)).toEqual([`accounts/${account}/models/b1`]);
    expect(page.totalSize).toBe(1);
  });
});

describe('references', () => {
  it('a PEFT base model, merge add-on or default draft model must exist in the account', async () => {
    expect(await rejected(models.create(ctx, account, { peftDetails: peft({ baseModel: `accounts/${account}/models/nope` }) }))).toMatchObject({
      code: 'INVALID_ARGUMENT', field: 'peftDetails.baseModel', reason: 'REFERENCE_NOT_FOUND',
    });
    await rejected(models.create(ctx, account, { peftDetails: peft({ mergeAddonModelName: `accounts/${account}/models/nope` }) }));
    await rejected(models.create(ctx, account, baseModel({}, { defaultDraftModel: `accounts/${account}/models/nope`, defaultDraftTokenCount: 4 })));
  });

  it('another account answers PERMISSION_DENIED whether or not the model exists there', async () => {
    await models.create(principalContext('other', 'admin'), 'other', baseModel(), 'theirs');
    const existing = await rejected(models.create(ctx, account, { peftDetails: peft({ baseModel: 'accounts/other/models/theirs' }) }), 'PERMISSION_DENIED');
    const missing = await rejected(models.create(ctx, account, { peftDetails: peft({ baseModel: 'accounts/other/models/nope' }) }), 'PERMISSION_DENIED');
    expect(existing.message).toBe(missing.message);
  });

  it('an update checks only the references it changes', async () => {
    await models.create(ctx, account, baseModel({}, { defaultDraftModel: `accounts/${account}/models/draft`, defaultDraftTokenCount: 4 }), 'withdraft');
    await models.delete(ctx, `accounts/${account}/models/draft`);
    const name = `accounts/${account}/models/withdraft`;
    expect((await models.update(ctx, name, { displayName: 'still editable' }, 'displayName')).displayName).toBe('still editable');
    await rejected(models.update(ctx, name, { defaultDraftModel: `accounts/${account}/models/gone` }, 'defaultDraftModel'));
  });
});

describe('permissions through the service', () => {
  it('cross-account GET is denied identically whether the model exists or not', async () => {
    const other = principalContext('other-account', 'admin');
    await models.create(ctx, account, baseModel(), 'secret');
    const existing = await rejected(models.get(other, `accounts/${account}/models/secret`), 'PERMISSION_DENIED');
    const missing = await rejected(models.get(other, `accounts/${account}/models/nothing-here`), 'PERMISSION_DENIED');
    expect(existing.message).toBe(missing.message);
    await rejected(models.list(other, account, {}), 'PERMISSION_DENIED');
    await rejected(models.create(other, account, baseModel()), 'PERMISSION_DENIED');
  });

  it('inference-user may read models but not create or delete them', async () => {
    const reader = principalContext(account, 'inference-user');
    await models.create(ctx, account, baseModel(), 'readable');
    await expect(models.get(reader, `accounts/${account}/models/readable`)).resolves.toBeDefined();
    await rejected(models.create(reader, account, baseModel()), 'PERMISSION_DENIED');
    await rejected(models.delete(reader, `accounts/${account}/models/readable`), 'PERMISSION_DENIED');
  });

  it('contributor may create and update but not delete', async () => {
    const contributor = principalContext(account, 'contributor');
    await models.create(contributor, account, baseModel(), 'contrib');
    await models.update(contributor, `accounts/${account}/models/contrib`, { displayName: 'x' });
    await rejected(models.delete(contributor, `accounts/${account}/models/contrib`), 'PERMISSION_DENIED');
  });
});
