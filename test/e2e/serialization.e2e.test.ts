import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  batchInferenceJobSchema, coreServicesToken, datasetSchema, deploymentSchema, deploymentShapeSchema, modelSchema,
  reinforcementFineTuningJobSchema, systemContext, userSchema,
} from '@berth/core';
import { account, baseModelBody, startHarness, undeclaredFields, type Harness } from './harness.js';

let h: Harness;
const v1 = `/v1/accounts/${account}`;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h.close());

/**
 * What the HTTP layer sends is what the services answer: for a resource of every kind, with every optional
 * field filled in, the HTTP body must equal what the service returns in-process (no serializer may drop or
 * reshape a field).
 */
describe('HTTP serialization loses nothing', () => {
  it('matches the in-process answer for every resource kind', async () => {
    const s = h.gateway.resolve(coreServicesToken);
    const ctx = systemContext('ser');
    await s.models.create(ctx, account, baseModelBody(), 'draft');
    const model = await s.models.create(ctx, account, baseModelBody({
      description: 'd', githubUrl: 'https://example.com/r', modelHubUrl: 'https://hub.example/m', public: true,
      conversationConfig: { style: 'jinja', system: 's', template: '{{x}}' }, trainingContextLength: 4096, supportsImageInput: true,
      supportsTools: true, defaultDraftModel: `accounts/${account}/models/draft`, defaultDraftTokenCount: 4,
      deprecationDate: { year: 2027, month: 2, day: 28 }, supportsLora: true, useHubApplyChatTemplate: true, snapshotType: 'FULL_SNAPSHOT',
      supportedPrecisions: ['FP16', 'FP8'], supportedPrecisionsWithCalibration: ['FP8'],
    }), 'full');
    const dataset = await s.datasets.create(ctx, account, { datasetId: 'ds', dataset: { displayName: 'D', format: 'CHAT', exampleCount: '10', externalUrl: 'https://example.com/d.jsonl', estimatedTokenCount: '1000', averageTurnCount: 2.5, userUploaded: {}, evalProtocol: {}, sourceJobName: 'j' } });
    const shape = await s.deploymentShapes.create(ctx, account, { baseModel: model.name, description: 'x', enableAddons: true, ngramSpeculationLength: 3, enableSessionAffinity: true, numLoraDeviceCached: 2, maxContextLength: 4096, presetType: 'CHAT', precision: 'FP16' }, 'sh');
    const deployment = await s.deployments.create(ctx, account, { baseModel: model.name, description: 'x', minReplicaCount: 1, maxReplicaCount: 3, autoscalingPolicy: { loadTargets: { concurrent_requests: 4 } }, autoTune: { longPrompt: true }, enableMtp: true, numPeftDeviceCached: 1, deploymentTemplate: 't' }, { deploymentId: 'dep' });
    const job = await s.batchInferenceJobs.create(ctx, account, { model: model.name, inputDatasetId: dataset.name, displayName: 'j', inferenceParameters: { maxTokens: 5, temperature: 0.5, topP: 0.9, n: 1, topK: 3, extraBody: '{}' } }, 'bj');
    await s.evaluators.create(ctx, account, { evaluatorId: 'e', evaluator: { criteria: [{ name: 'exact', type: 'EXACT_MATCH', exactMatch: {} }] } });
    const rft = await s.reinforcementFineTuningJobs.create(ctx, account, { dataset: dataset.name, evaluator: `accounts/${account}/evaluators/e`, trainingConfig: { baseModel: model.name, learningRate: 0.0001, loraRank: 8, epochs: 1 }, lossConfig: { method: 'GRPO', klBeta: 0.1 }, trackerConfig: { enabled: true, project: 'p' }, inferenceParameters: { maxOutputTokens: 10 } }, 'rj');
    const user = await s.users.create(ctx, account, { role: 'user', displayName: 'U', email: 'u@example.com', serviceAccount: true }, 'u1');
    for (const [path, expected, schema] of [
      [`/models/full`, await s.models.get(ctx, String(model.name)), modelSchema],
      [`/datasets/ds`, dataset, datasetSchema],
      [`/deploymentShapes/sh`, shape, deploymentShapeSchema],
      [`/deployments/dep`, deployment, deploymentSchema],
      [`/batchInferenceJobs/bj`, job, batchInferenceJobSchema],
      [`/reinforcementFineTuningJobs/rj`, rft, reinforcementFineTuningJobSchema],
      [`/users/u1`, user, userSchema],
    ] as const) {
      const r = await h.call('GET', `${v1}${path}`);
      expect(r.status, path).toBe(200);
      expect(r.body, path).toEqual(JSON.parse(JSON.stringify(expected)));
      // JSON.stringify sends whatever the service answers: every field must be one the schema declares.
      expect(undeclaredFields(r.body, schema), path).toEqual([]);
    }
    expect(undeclaredFields({ a: 1, b: { c: [{ d: 1, e: 2 }] } }, { properties: { a: {}, b: { properties: { c: { items: { properties: { d: {} } } } } } } })).toEqual(['b.c[0].e']);
    const list = await h.call<{ deployments: unknown[] }>('GET', `${v1}/deployments?filter=${encodeURIComponent('name = "accounts/acme/deployments/dep"')}`);
    expect(list.body.deployments).toEqual([JSON.parse(JSON.stringify(deployment))]);
  });
});

/**
 * An unchanged resource's JSON is made once per stored version (`serializedViewOf`): repeated GETs answer
 * the same text with the JSON media type, and a write is seen by the very next GET.
 */
describe('answers of unchanged resources', () => {
  it('are the same JSON on every read and follow every update', async () => {
    const s = h.gateway.resolve(coreServicesToken);
    await s.models.create(systemContext('ser'), account, baseModelBody({ displayName: 'first' }), 'cached');
    const path = `${v1}/models/cached`;
    const reads = [await h.call<{ displayName: string; etag: string }>('GET', path), await h.call<{ displayName: string; etag: string }>('GET', path)];
    for (const read of reads) {
      expect(read.status).toBe(200);
      expect(read.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(read.body.displayName).toBe('first');
    }
    expect(reads[1]!.body).toEqual(reads[0]!.body);
    const updated = await h.call('PATCH', `${path}?updateMask=displayName`, { body: { displayName: 'second' } });
    expect(updated.status).toBe(200);
    const after = await h.call<{ displayName: string; etag: string }>('GET', path);
    expect(after.body.displayName).toBe('second');
    expect(after.body.etag).not.toBe(reads[0]!.body.etag);
  });
});
