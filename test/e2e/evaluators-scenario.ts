import { expect } from 'vitest';
import { evaluatorRunnerToken, queueWorkers, systemContext, type EvaluatorSpec, type GatewayPlugin } from '@berth/core';
import { apiKeyAuth } from '@berth/plugin-auth-api-keys';
import { account, type Harness } from './harness.js';

const v1 = `/v1/accounts/${account}`;

/** A gateway that builds evaluators: the storage given, queue workers, API keys. */
export function evaluatorGatewayPlugins(storage: GatewayPlugin, pollIntervalMs = 50): GatewayPlugin[] {
  return [storage, queueWorkers({ pollIntervalMs }), apiKeyAuth({ cacheTtlMs: 0 })];
}

const jsCriterion = {
  type: 'CODE_SNIPPETS',
  name: 'math',
  codeSnippets: {
    language: 'typescript',
    fileContents: { 'main.ts': 'export function evaluate(input: { answer: string; groundTruth: string }): number {\n  return input.answer.trim() === input.groundTruth ? 1 : 0;\n}\n' },
    entryFile: 'main.ts',
    entryFunc: 'evaluate',
  },
};

/** GET until the evaluator has left BUILDING (bounded). */
export async function builtOverHttp(h: Harness, id: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 300; i++) {
    const got = await h.call('GET', `${v1}/evaluators/${id}`);
    expect(got.status).toBe(200);
    if (got.body.state !== 'BUILDING') return got.body;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`evaluator ${id} is still BUILDING`);
}

/**
 * Evaluators over HTTP: create (code and built-in) → BUILDING → ACTIVE, a broken one BUILD_FAILED, get,
 * list with filter/order/pages, PATCH (metadata keeps the state, criteria rebuild), delete, errors in the
 * control plane's format; then the runner scores with the evaluator as the API answers it.
 */
export async function runEvaluatorScenario(h: Harness, prefix: string): Promise<void> {
  const created = await h.call('POST', `${v1}/evaluators`, {
    body: { evaluatorId: `${prefix}-code`, evaluator: { displayName: 'Math', description: 'exact answer', criteria: [jsCriterion] } },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  expect(created.body).toMatchObject({ name: `accounts/${account}/evaluators/${prefix}-code`, state: 'BUILDING', displayName: 'Math' });
  expect(created.body.etag).toEqual(expect.any(String));
  const active = await builtOverHttp(h, `${prefix}-code`);
  expect(active).toMatchObject({ state: 'ACTIVE', status: { code: 'OK' }, criteria: [jsCriterion] });

  const builtIn = await h.call('POST', `${v1}/evaluators`, {
    body: {
      evaluatorId: `${prefix}-builtin`,
      evaluator: {
        displayName: 'Built-in',
        criteria: [{ name: 'exact', type: 'EXACT_MATCH', exactMatch: {} }, { name: 'digits', type: 'REGEX', regex: { pattern: '^\\d+$' } }],
        rollupSettings: { criteriaWeights: { exact: 3, digits: 1 }, successThreshold: 0.5 },
      },
    },
  });
  expect(builtIn.status, JSON.stringify(builtIn.body)).toBe(200);
  expect((await builtOverHttp(h, `${prefix}-builtin`)).state).toBe('ACTIVE');

  const broken = await h.call('POST', `${v1}/evaluators`, {
    body: { evaluatorId: `${prefix}-broken`, evaluator: { displayName: 'Broken', criteria: [{ codeSnippets: { language: 'javascript', fileContents: { 'main.js': 'export function evaluate( {' } } }] } },
  });
  expect(broken.status).toBe(200);
  const failed = await builtOverHttp(h, `${prefix}-broken`);
  expect(failed).toMatchObject({ state: 'BUILD_FAILED', status: { code: 'INVALID_ARGUMENT' } });

  const duplicate = await h.call('POST', `${v1}/evaluators`, { body: { evaluatorId: `${prefix}-code`, evaluator: { criteria: [jsCriterion] } } });
  expect(duplicate.status).toBe(409);
  const invalid = await h.call('POST', `${v1}/evaluators`, { body: { evaluator: { criteria: [{ type: 'REGEX', regex: { pattern: '(' } }] } } });
  expect(invalid.status).toBe(400);
  expect(invalid.body).toMatchObject({ code: 3, message: expect.stringContaining('criteria[0].regex') });
  const unknown = await h.call('POST', `${v1}/evaluators`, { body: { evaluator: { criteria: [jsCriterion], colour: 'red' } } });
  expect(unknown.status).toBe(400);
  const notJson = await h.call('POST', `${v1}/evaluators`, { raw: '{"evaluator": ', headers: { 'content-type': 'application/json' } });
  expect(notJson.status).toBe(400);

  const filtered = await h.call<{ evaluators: Array<{ name: string }>; totalSize: number }>(
    'GET', `${v1}/evaluators?filter=${encodeURIComponent('state = ACTIVE')}&orderBy=${encodeURIComponent('display_name desc')}`,
  );
  expect(filtered.status, JSON.stringify(filtered.body)).toBe(200);
  const names = filtered.body.evaluators.map((e) => e.name.split('/').pop()).filter((n) => n?.startsWith(`${prefix}-`));
  expect(names).toEqual([`${prefix}-code`, `${prefix}-builtin`]);
  const page = await h.call<{ evaluators: unknown[]; nextPageToken?: string }>('GET', `${v1}/evaluators?pageSize=1&orderBy=create_time`);
  expect(page.body.evaluators).toHaveLength(1);
  expect(page.body.nextPageToken).toEqual(expect.any(String));
  const badFilter = await h.call('GET', `${v1}/evaluators?filter=${encodeURIComponent('colour = red')}`);
  expect(badFilter.status).toBe(400);

  const renamed = await h.call('PATCH', `${v1}/evaluators/${prefix}-code?updateMask=displayName`, { body: { displayName: 'Arithmetic' } });
  expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
  expect(renamed.body).toMatchObject({ displayName: 'Arithmetic', state: 'ACTIVE' });
  const stale = await h.call('PATCH', `${v1}/evaluators/${prefix}-code?updateMask=displayName`, { body: { displayName: 'x', etag: String(created.body.etag) } });
  expect(stale.status).toBe(409);
  const fixed = await h.call('PATCH', `${v1}/evaluators/${prefix}-broken?updateMask=criteria`, { body: { criteria: [jsCriterion] } });
  expect(fixed.body.state).toBe('BUILDING');
  expect((await builtOverHttp(h, `${prefix}-broken`)).state).toBe('ACTIVE');

  // The runner scores with the evaluator as the API answers it (what the fine-tuning loop will do).
  const runner = h.gateway.resolve(evaluatorRunnerToken);
  const ctx = systemContext('scenario');
  const row = { messages: [{ role: 'user', content: '2 + 2?' }], ground_truth: '4' };
  const code = (await h.call('GET', `${v1}/evaluators/${prefix}-code`)).body as EvaluatorSpec;
  const outcomes = await runner.scoreMany(ctx, code, ['4', ' 4 ', '5'].map((text) => ({ row, answer: { text } })));
  expect(outcomes.map((o) => (o.status === 'scored' ? o.score : o.reason))).toEqual([1, 1, 0]);
  const weighted = (await h.call('GET', `${v1}/evaluators/${prefix}-builtin`)).body as EvaluatorSpec;
  expect(await runner.score(ctx, weighted, { row: { ...row, ground_truth: '44' }, answer: { text: '4' } })).toMatchObject({
    status: 'scored', score: 0.25, details: { passed: false },
  });

  const deleted = await h.call('DELETE', `${v1}/evaluators/${prefix}-broken`);
  expect(deleted.status).toBe(200);
  expect((await h.call('GET', `${v1}/evaluators/${prefix}-broken`)).status).toBe(404);
  expect((await h.call('DELETE', `${v1}/evaluators/${prefix}-broken`)).status).toBe(404);
}
