import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeyManagerToken, coreServicesToken, systemContext, type GatewayPlugin } from '@berth/core';
import { account, baseModelBody, startHarness, userWithKey, type ApiResponse, type Harness } from './harness.js';

/**
 * Issue 9 item 4, over HTTP: the input rules hold on every storage. Each block reproduces one of the
 * issue's defects (#4 NUL, #6 page tokens, #7 references, #8 permission before body, #10 mask
 * sub-paths, #11 int64 range). Shared by the memory (`input-rules.e2e.test.ts`) and PostgreSQL
 * (`input-rules.pg.test.ts`) runs.
 */
export function inputRulesSuite(label: string, plugins: () => Promise<{ plugins: GatewayPlugin[]; cleanup?: () => Promise<void> }>): void {
  describe(`input rules (${label})`, () => {
    let h: Harness;
    let cleanup: (() => Promise<void>) | undefined;
    let otherKey: string;
    const v1 = `/v1/accounts/${account}`;
    const ov1 = '/v1/accounts/other';
    const model = (id: string) => `accounts/${account}/models/${id}`;

    beforeAll(async () => {
      const setup = await plugins();
      cleanup = setup.cleanup;
      h = await startHarness({ plugins: setup.plugins });
      for (const id of ['m1', 'm2', 'm3']) {
        const created = await h.call('POST', `${v1}/models`, { body: { modelId: id, model: baseModelBody() } });
        expect(created.status).toBe(200);
      }
      for (const id of ['d1', 'd2']) await h.call('POST', `${v1}/datasets`, { body: { datasetId: id, dataset: { format: 'CHAT' } } });
      await h.call('POST', `${v1}/deployments?deploymentId=dep`, { body: { baseModel: model('m1') } });
      // A second account with an admin, a base model and a deployment of its own.
      const services = h.gateway.resolve(coreServicesToken);
      const ctx = systemContext('test');
      await services.users.create(ctx, 'other', { role: 'admin' }, 'boss');
      otherKey = (await h.gateway.resolve(apiKeyManagerToken).create(ctx, 'accounts/other/users/boss', {})).key;
      const theirs = await h.call('POST', `${ov1}/models`, { body: { modelId: 'theirs', model: baseModelBody() }, key: otherKey });
      expect(theirs.status).toBe(200);
      await h.call('POST', `${ov1}/datasets`, { body: { datasetId: 'd1', dataset: { format: 'CHAT' } }, key: otherKey });
      await h.call('POST', `${ov1}/deployments?deploymentId=theirdep`, { body: { baseModel: 'accounts/other/models/theirs' }, key: otherKey });
    });
    afterAll(async () => {
      await h?.close();
      await cleanup?.();
    });

    const expectInvalid = (response: ApiResponse, why: string) => {
      expect(response.status, `${why}: ${JSON.stringify(response.body)}`).toBe(400);
      expect(response.body).toMatchObject({ code: 3, message: expect.any(String), details: expect.any(Array) });
    };

    describe('#4 strings with NUL are refused', () => {
      it('in body fields at any depth, on create and on update', async () => {
        expectInvalid(await h.call('POST', `${v1}/models`, { body: { modelId: 'nul1', model: baseModelBody({ displayName: 'a\u0000b' }) } }), 'top-level field');
        const nested = baseModelBody();
        (nested.baseModelDetails as Record<string, unknown>).modelType = 'llama\u0000';
        expectInvalid(await h.call('POST', `${v1}/models`, { body: { modelId: 'nul2', model: nested } }), 'nested field');
        expectInvalid(await h.call('POST', `${v1}/models`, { body: { modelId: 'nul3', model: baseModelBody({ description: 'x', labels: { 'k\u0000': 'v' } }) } }), 'key');
        expectInvalid(await h.call('POST', `${v1}/users?userId=nuluser`, { body: { role: 'user', email: 'a\u0000@example.com' } }), 'users');
        expectInvalid(await h.call('PATCH', `${v1}/models/m1`, { body: { description: 'x\u0000y' } }), 'update');
        expectInvalid(await h.call('POST', `${v1}/datasets`, { body: { datasetId: 'nulds', dataset: { displayName: '\u0000' } } }), 'datasets');
        expect((await h.call('GET', `${v1}/models/nul1`)).status).toBe(404);
      });

      it('in filter values and other query parameters', async () => {
        expectInvalid(await h.call('GET', `${v1}/models?filter=${encodeURIComponent('display_name = "a\u0000"')}`), 'filter');
        expectInvalid(await h.call('GET', `${v1}/deployments?filter=${encodeURIComponent('base_model = "x\u0000y"')}`), 'filter');
        expectInvalid(await h.call('GET', `${v1}/models?orderBy=${encodeURIComponent('display_name\u0000')}`), 'orderBy');
        expectInvalid(await h.call('GET', `${v1}/models?readMask=${encodeURIComponent('name\u0000')}`), 'readMask');
        expectInvalid(await h.call('GET', `${v1}/models?pageToken=${encodeURIComponent('a\u0000')}`), 'pageToken');
        expectInvalid(await h.call('POST', `${v1}/users?userId=${encodeURIComponent('u\u0000')}`, { body: { role: 'user' } }), 'id');
      });
    });

    describe('#6 page tokens are bound to collection, account and query', () => {
      it('refuses a token from /models on /users, /datasets and another account', async () => {
        const first = await h.call<{ nextPageToken?: string }>('GET', `${v1}/models?pageSize=1`);
        expect(first.status).toBe(200);
        const token = first.body.nextPageToken!;
        expect(token).toBeTruthy();
        expect((await h.call('GET', `${v1}/models?pageSize=1&pageToken=${token}`)).status).toBe(200);
        expectInvalid(await h.call('GET', `${v1}/users?pageSize=1&pageToken=${token}`), 'users');
        expectInvalid(await h.call('GET', `${v1}/datasets?pageSize=1&pageToken=${token}`), 'datasets');
        expectInvalid(await h.call('GET', `${ov1}/models?pageSize=1&pageToken=${token}`, { key: otherKey }), 'another account');
        expectInvalid(await h.call('GET', `${v1}/models?pageSize=1&pageToken=${token}&filter=${encodeURIComponent('state = READY')}`), 'another query');
      });
    });

    describe('#7 references are checked at create time', () => {
      const addon = (baseModel: string) => ({ kind: 'HUB_PEFT_ADDON', peftDetails: { baseModel, r: 8, targetModules: ['q_proj'] } });

      it('refuses a PEFT add-on on a base model of another account, existing or not, with one answer', async () => {
        const existing = await h.call('POST', `${v1}/models`, { body: { modelId: 'a1', model: addon('accounts/other/models/theirs') } });
        const missing = await h.call('POST', `${v1}/models`, { body: { modelId: 'a2', model: addon('accounts/other/models/nope') } });
        expect(existing.status).toBe(403);
        expect(missing.status).toBe(403);
        expect(existing.body).toEqual(missing.body);
        expect(existing.body).toMatchObject({ code: 7, message: 'permission denied on accounts/other' });
      });

      it('refuses a PEFT add-on on a base model that does not exist, and accepts one that does', async () => {
        expectInvalid(await h.call('POST', `${v1}/models`, { body: { modelId: 'a3', model: addon(model('nope')) } }), 'missing base');
        expect((await h.call('POST', `${v1}/models`, { body: { modelId: 'a4', model: addon(model('m1')) } })).status).toBe(200);
      });

      it('checks the other reference fields the same way', async () => {
        const cases: Array<[string, string, unknown]> = [
          ['default draft model', `${v1}/models`, { modelId: 'r1', model: baseModelBody({ defaultDraftModel: '%', defaultDraftTokenCount: 4 }) }],
          ['deployment base model', `${v1}/deployments?deploymentId=r2`, { baseModel: '%' }],
          ['deployment draft model', `${v1}/deployments?deploymentId=r3`, { baseModel: model('m1'), draftModel: '%', draftTokenCount: 4 }],
          ['deployment shape base model', `${v1}/deploymentShapes?deploymentShapeId=r4`, { baseModel: '%' }],
          ['deployment shape draft model', `${v1}/deploymentShapes?deploymentShapeId=r5`, { baseModel: model('m1'), draftModel: '%', draftTokenCount: 4 }],
          ['deployed model', `${v1}/deployedModels?deployedModelId=r6`, { model: '%', deployment: `accounts/${account}/deployments/dep` }],
          ['batch job model', `${v1}/batchInferenceJobs?batchInferenceJobId=r7`, { model: '%', inputDatasetId: 'd1' }],
          ['batch job output dataset', `${v1}/batchInferenceJobs?batchInferenceJobId=r8`, { model: model('m1'), inputDatasetId: 'd1', outputDatasetId: '%' }],
        ];
        for (const [what, path, body] of cases) {
          const text = (name: string) => JSON.parse(JSON.stringify(body).replace('"%"', JSON.stringify(name))) as unknown;
          const otherExisting = await h.call('POST', path, { body: text(what.includes('dataset') ? 'accounts/other/datasets/d1' : 'accounts/other/models/theirs') });
          const otherMissing = await h.call('POST', path, { body: text(what.includes('dataset') ? 'accounts/other/datasets/nope' : 'accounts/other/models/nope') });
          expect(otherExisting.status, `${what}, other account: ${JSON.stringify(otherExisting.body)}`).toBe(403);
          expect(otherMissing.body, what).toEqual(otherExisting.body);
          if (!what.includes('output')) {
            const missing = await h.call('POST', path, { body: text(what.includes('dataset') ? `accounts/${account}/datasets/nope` : model('nope')) });
            expect([400, 404], `${what}, missing: ${JSON.stringify(missing.body)}`).toContain(missing.status);
          }
        }
      });
    });

    describe('#8 permission is checked before the body', () => {
      it('answers 403 to :scale on another account with an empty or bad body', async () => {
        for (const body of [undefined, {}, { replicaCount: 'x' }, []]) {
          const response = await h.call('PATCH', `${v1}/deployments/dep:scale`, body === undefined ? { key: otherKey } : { body, key: otherKey });
          expect(response.status, JSON.stringify(body)).toBe(403);
        }
      });

      it('answers 403 to a role without the permission, whatever the body', async () => {
        const reader = await userWithKey(h, 'reader', 'inference-user');
        for (const body of [undefined, {}, { replicaCount: -1 }]) {
          const response = await h.call('PATCH', `${v1}/deployments/dep:scale`, body === undefined ? { key: reader } : { body, key: reader });
          expect(response.status, JSON.stringify(body)).toBe(403);
        }
        expect((await h.call('POST', `${v1}/models`, { body: { nope: 1 }, key: reader })).status).toBe(403);
        expect((await h.call('POST', `${v1}/deployments/dep:undelete`, { body: { nope: 1 }, key: reader })).status).toBe(403);
      });

      it('answers 403 before 400 on every route of another account', async () => {
        const bad = { nope: 1 };
        const paths: Array<[string, string]> = [
          ['POST', `${v1}/models`], ['PATCH', `${v1}/models/m1`], ['POST', `${v1}/datasets`], ['POST', `${v1}/users`],
          ['PATCH', `${v1}/users/admin`], ['POST', `${v1}/deployments`], ['PATCH', `${v1}/deployments/dep`],
          ['POST', `${v1}/deployments/dep:undelete`], ['POST', `${v1}/deploymentShapes`], ['POST', `${v1}/deployedModels`],
          ['POST', `${v1}/batchInferenceJobs`], ['POST', `${v1}/reinforcementFineTuningJobs`],
          ['POST', `${v1}/reinforcementFineTuningJobs/j:cancel`], ['POST', `${v1}/reinforcementFineTuningJobs/j:resume`],
          ['POST', `${v1}/users/admin/apiKeys`], ['POST', `${v1}/datasets/d1:getUploadEndpoint`],
          ['POST', `${v1}/datasets/d1:validateUpload`], ['POST', `${v1}/datasets/d1:getDownloadEndpoint`],
        ];
        for (const [method, path] of paths) {
          const response = await h.call(method, path, { body: bad, key: otherKey });
          expect(response.status, `${method} ${path}: ${JSON.stringify(response.body)}`).toBe(403);
        }
      });
    });

    describe('#10 unknown mask sub-paths are refused', () => {
      it('in readMask and updateMask, at any depth', async () => {
        expectInvalid(await h.call('GET', `${v1}/models/m1?readMask=baseModelDetails.nope`), 'readMask');
        expectInvalid(await h.call('GET', `${v1}/models?readMask=base_model_details.model_type.deeper`), 'list readMask');
        expectInvalid(await h.call('PATCH', `${v1}/models/m1?updateMask=baseModelDetails.nope`, { body: {} }), 'updateMask');
        expectInvalid(await h.call('GET', `${v1}/deployments/dep?readMask=autoscalingPolicy.nope`), 'deployment readMask');
        const ok = await h.call('GET', `${v1}/models/m1?readMask=base_model_details.model_type,display_name`);
        expect(ok.status).toBe(200);
        expect(ok.body).toEqual({ name: model('m1'), displayName: 'Llama 3 8B', baseModelDetails: { modelType: 'llama' } });
        expect((await h.call('GET', `${v1}/deployments/dep?readMask=autoscaling_policy.load_targets.anything`)).status).toBe(200);
      });
    });

    describe('#11 int64 fields are range-checked', () => {
      it('refuses parameterCount above the int64 maximum and accepts the maximum', async () => {
        const body = (parameterCount: string) => {
          const model = baseModelBody();
          (model.baseModelDetails as Record<string, unknown>).parameterCount = parameterCount;
          return model;
        };
        expectInvalid(await h.call('POST', `${v1}/models`, { body: { modelId: 'big1', model: body('9999999999999999999') } }), 'above max');
        expectInvalid(await h.call('POST', `${v1}/models`, { body: { modelId: 'big2', model: body('9223372036854775808') } }), 'max + 1');
        expectInvalid(await h.call('POST', `${v1}/models`, { body: { modelId: 'big3', model: body('-1') } }), 'negative');
        expect((await h.call('POST', `${v1}/models`, { body: { modelId: 'big4', model: body('9223372036854775807') } })).status).toBe(200);
        expectInvalid(await h.call('POST', `${v1}/datasets`, { body: { datasetId: 'big5', dataset: { exampleCount: '9223372036854775808' } } }), 'exampleCount');
      });
    });
  });
}
