import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { memoryStorage } from '../../testing/index.js';
import { createTestGateway, principalContext, type TestGateway } from '../../testing/test-gateway.js';
import { expectRejected as rejected } from '../../testing/assertions.js';
import { definePlugin } from '../../kernel/plugin.js';
import { evaluatorRunnerToken } from '../../kernel/tokens.js';
import { queueWorkers } from '../../services/queue-workers-plugin.js';
import { createSandboxEvaluatorRunner } from '../../evaluators/sandbox-evaluator-runner.js';
import type { RequestContext } from '../../kernel/request-context.js';
import type { JsonObject } from '../../ports/json.js';
import type { EvaluatorService } from './evaluator-service.js';
import { evaluatorBuildKey } from './evaluator-rules.js';
import type { Evaluator } from './evaluator-schema.js';

const account = 'acme';
const ctx: RequestContext = principalContext(account, 'admin');
const code = (text: string, language = 'javascript', file = 'main.js'): JsonObject => ({
  type: 'CODE_SNIPPETS', name: 'code', codeSnippets: { language, fileContents: { [file]: text } },
});
const good = code('export function evaluate(input) { return input.answer === input.groundTruth ? 1 : 0; }');

let tg: TestGateway;
let evaluators: EvaluatorService;

async function start(extra: Parameters<typeof createTestGateway>[0]['plugins'] = []): Promise<void> {
  tg = await createTestGateway({ plugins: [memoryStorage(), queueWorkers({ pollIntervalMs: 50 }), ...extra] });
  evaluators = tg.services.evaluators;
}

/** The evaluator once its build has ended (polls; bounded). */
async function built(name: string): Promise<Evaluator> {
  for (let i = 0; i < 400; i++) {
    const evaluator = await evaluators.get(ctx, name);
    if (evaluator.state !== 'BUILDING') return evaluator;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`${name} is still BUILDING`);
}

afterEach(async () => {
  await tg.stop();
});

describe('create and build', () => {
  beforeEach(() => start());

  it('stores a new evaluator BUILDING, then its build makes it ACTIVE', async () => {
    const created = await evaluators.create(ctx, account, { evaluatorId: 'exact', evaluator: { displayName: 'Exact', criteria: [good] } });
    expect(created).toMatchObject({ name: `accounts/${account}/evaluators/exact`, state: 'BUILDING', displayName: 'Exact' });
    expect(typeof created.createTime).toBe('string');
    expect(await built(created.name)).toMatchObject({ state: 'ACTIVE', status: { code: 'OK' } });
  });

  it('generates an id when none is given and keeps the creator', async () => {
    const withEmail: RequestContext = { ...ctx, principal: { ...ctx.principal!, email: 'ann@example.com' } };
    const created = await evaluators.create(withEmail, account, { evaluator: { criteria: [{ exactMatch: {} }] } });
    expect(created.name).toMatch(new RegExp(`^accounts/${account}/evaluators/[a-z0-9-]+$`));
    expect(created.createdBy).toBe('ann@example.com');
  });

  it('code that does not compile ends BUILD_FAILED with the reason in status', async () => {
    const created = await evaluators.create(ctx, account, { evaluatorId: 'broken', evaluator: { criteria: [code('export function evaluate( {')] } });
    const after = await built(created.name);
    expect(after.state).toBe('BUILD_FAILED');
    expect(after.status).toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('main.js') });
  });

  it('TypeScript criteria build', async () => {
    const ts = code('export const evaluate = (i: { answer: string }): number => (i.answer.length > 0 ? 1 : 0);', 'typescript', 'main.ts');
    const created = await evaluators.create(ctx, account, { evaluatorId: 'ts', evaluator: { criteria: [ts] } });
    expect((await built(created.name)).state).toBe('ACTIVE');
  });

  it('a duplicate id is ALREADY_EXISTS', async () => {
    await evaluators.create(ctx, account, { evaluatorId: 'twice', evaluator: { criteria: [good] } });
    await rejected(evaluators.create(ctx, account, { evaluatorId: 'twice', evaluator: { criteria: [good] } }), 'ALREADY_EXISTS');
  });
});

describe('create rules (INVALID_ARGUMENT naming the field)', () => {
  beforeEach(() => start());
  const field = async (evaluator: JsonObject) => (await rejected(evaluators.create(ctx, account, { evaluator }))).field;

  it('needs at least one criterion, each configured as its kind needs', async () => {
    expect(await field({})).toBe('criteria');
    expect(await field({ criteria: [] })).toBe('criteria');
    expect(await field({ criteria: [{ name: 'x' }] })).toBe('criteria[0].type');
    expect(await field({ criteria: [{ exactMatch: {}, regex: { pattern: 'a' } }] })).toBe('criteria[0].type');
    expect(await field({ criteria: [{ type: 'REGEX' }] })).toBe('criteria[0].regex');
    expect(await field({ criteria: [{ type: 'REGEX', regex: { pattern: '(' } }] })).toBe('criteria[0].regex');
    expect(await field({ criteria: [{ type: 'REGEX', regex: { pattern: 'a' }, exactMatch: {} }] })).toBe('criteria[0].exactMatch');
    expect(await field({ criteria: [{ codeSnippets: { language: 'cobol', fileContents: { 'a.cbl': 'x' } } }] })).toBe('criteria[0].codeSnippets.language');
    expect(await field({ criteria: [{ codeSnippets: { language: 'js', fileContents: {} } }] })).toBe('criteria[0].codeSnippets.fileContents');
    expect(await field({ criteria: [{ codeSnippets: { language: 'js', fileContents: { 'a.js': '', 'b.js': '' } } }] })).toBe('criteria[0].codeSnippets.entryFile');
    expect(await field({ criteria: [{ codeSnippets: { language: 'js', fileContents: { 'a.js': '' }, entryFile: 'c.js' } }] })).toBe('criteria[0].codeSnippets.entryFile');
    expect(await field({ criteria: [{ codeSnippets: { language: 'js', fileContents: { 'a.js': '' }, entryFunc: 'not valid' } }] })).toBe('criteria[0].codeSnippets.entryFunc');
    expect(await field({ criteria: [{ remote: { url: 'ftp://example.com/' } }] })).toBe('criteria[0].remote.url');
    expect(await field({ criteria: [{ jsonSchema: { schema: { type: 'nope' } } }] })).toBe('criteria[0].jsonSchema.schema');
    expect(await field({ criteria: [{ jsonSchema: { schema: { properties: { a: { type: 'string', pattern: '^(a+)+$' } } } } }] })).toBe('criteria[0].jsonSchema.schema.properties.a.pattern');
    expect(await field({ criteria: [{ type: 'SOMETHING', exactMatch: {} }] })).toBe('criteria[0].type');
  });

  it('criterion names are unique; weights name criteria; pythonCode rollups are refused', async () => {
    expect(await field({ criteria: [{ name: 'a', exactMatch: {} }, { name: 'a', exactMatch: {} }] })).toBe('criteria[1].name');
    expect(await field({ criteria: [{ name: 'a', exactMatch: {} }], rollupSettings: { criteriaWeights: { b: 1 } } })).toBe('rollupSettings.criteriaWeights');
    expect(await field({ criteria: [{ name: 'a', exactMatch: {} }], rollupSettings: { criteriaWeights: { a: -1 } } })).toBe('rollupSettings.criteriaWeights.a');
    expect(await field({ criteria: [good], rollupSettings: { pythonCode: 'def rollup(x): return 1' } })).toBe('rollupSettings.pythonCode');
    expect(await field({ criteria: [good], rollupSettings: { successThreshold: 1.5 } })).toBe('rollupSettings.successThreshold');
  });

  it('defaultDataset is a dataset of the same account (another account is PERMISSION_DENIED)', async () => {
    expect(await field({ criteria: [good], defaultDataset: 'nope' })).toBe('defaultDataset');
    await rejected(evaluators.create(ctx, account, { evaluator: { criteria: [good], defaultDataset: 'accounts/other/datasets/d' } }), 'PERMISSION_DENIED');
    const ok = await evaluators.create(ctx, account, { evaluator: { criteria: [good], defaultDataset: `accounts/${account}/datasets/d` } });
    expect(ok.defaultDataset).toBe(`accounts/${account}/datasets/d`);
  });

  it('output-only fields in the body are ignored; unknown fields are refused', async () => {
    const created = await evaluators.create(ctx, account, { evaluator: { criteria: [good], state: 'ACTIVE', status: { code: 'OK' } } });
    expect(created.state).toBe('BUILDING');
    expect(await field({ criteria: [good], surprise: 1 })).toBe('surprise');
    expect((await rejected(evaluators.create(ctx, account, { evaluator: { criteria: [good] }, extra: true }))).field).toBe('extra');
  });
});

describe('update, list, delete', () => {
  beforeEach(() => start());

  it('metadata changes keep the state; a criteria change builds again', async () => {
    const name = (await evaluators.create(ctx, account, { evaluatorId: 'e', evaluator: { criteria: [good] } })).name;
    await built(name);
    const renamed = await evaluators.update(ctx, name, { displayName: 'Renamed', description: 'd' }, 'displayName,description');
    expect(renamed).toMatchObject({ state: 'ACTIVE', displayName: 'Renamed', description: 'd' });
    const changed = await evaluators.update(ctx, name, { criteria: [code('export function evaluate( {')] }, 'criteria');
    expect(changed.state).toBe('BUILDING');
    expect(changed.status).toBeUndefined();
    expect((await built(name)).state).toBe('BUILD_FAILED');
    await evaluators.update(ctx, name, { criteria: [good] }, 'criteria');
    expect((await built(name)).state).toBe('ACTIVE');
    expect((await rejected(evaluators.update(ctx, name, { criteria: [] }, 'criteria'))).field).toBe('criteria');
  });

  it('the build key ignores the order of object keys (PostgreSQL reorders jsonb keys)', () => {
    const a = { criteria: [{ type: 'EXACT_MATCH' as const, name: 'x', exactMatch: { caseSensitive: false, trimWhitespace: true } }] } as Evaluator;
    const b = { criteria: [{ exactMatch: { trimWhitespace: true, caseSensitive: false }, name: 'x', type: 'EXACT_MATCH' as const }] } as Evaluator;
    expect(evaluatorBuildKey(a)).toBe(evaluatorBuildKey(b));
    expect(evaluatorBuildKey(a)).not.toBe(evaluatorBuildKey({ criteria: [{ exactMatch: {} }] } as Evaluator));
  });

  it('a build result for an evaluator that changed since is ignored', async () => {
    const created = await evaluators.create(ctx, account, { evaluatorId: 'stale', evaluator: { criteria: [good] } });
    const stale = evaluatorBuildKey({ ...created, criteria: [{ exactMatch: {} }] });
    expect(await evaluators.finishBuild(ctx, created.name, stale, { ok: false, code: 'INVALID_ARGUMENT', message: 'old' })).toBeUndefined();
    expect((await built(created.name)).state).toBe('ACTIVE');
  });

  it('lists with filter, order and pages; deletes', async () => {
    for (const [id, criteria] of [['a', [good]], ['b', [code('export function evaluate( {')]], ['c', [good]]] as const) {
      await evaluators.create(ctx, account, { evaluatorId: id, evaluator: { displayName: id.toUpperCase(), criteria: [...criteria] } });
    }
    for (const id of ['a', 'b', 'c']) await built(`accounts/${account}/evaluators/${id}`);
    const active = await evaluators.list(ctx, account, { filter: 'state = ACTIVE', orderBy: 'display_name desc' });
    expect(active.items.map((e) => e.displayName)).toEqual(['C', 'A']);
    expect(active.totalSize).toBe(2);
    const first = await evaluators.list(ctx, account, { pageSize: 2, orderBy: 'display_name' });
    expect(first.items.map((e) => e.displayName)).toEqual(['A', 'B']);
    const second = await evaluators.list(ctx, account, { pageSize: 2, orderBy: 'display_name', pageToken: first.nextPageToken });
    expect(second.items.map((e) => e.displayName)).toEqual(['C']);
    expect(second.nextPageToken).toBeUndefined();
    await evaluators.delete(ctx, `accounts/${account}/evaluators/b`);
    await rejected(evaluators.get(ctx, `accounts/${account}/evaluators/b`), 'NOT_FOUND');
    await rejected(evaluators.list(ctx, account, { filter: 'colour = red' }));
  });

  it('roles: a contributor creates but cannot delete; an inference user cannot read', async () => {
    const created = await evaluators.create(principalContext(account, 'contributor'), account, { evaluator: { criteria: [good] } });
    await rejected(evaluators.delete(principalContext(account, 'contributor'), created.name), 'PERMISSION_DENIED');
    await rejected(evaluators.get(principalContext(account, 'inference-user'), created.name), 'PERMISSION_DENIED');
    await rejected(evaluators.get(principalContext('other', 'admin'), created.name), 'PERMISSION_DENIED');
  });
});

describe('a host without python3', () => {
  beforeEach(() => start([definePlugin({
    id: 'no-python',
    register(binder) {
      binder.bind({ token: evaluatorRunnerToken, deps: [], factory: () => createSandboxEvaluatorRunner({ python: false }), override: true });
    },
  })]));

  it('a Python evaluator ends BUILD_FAILED with FAILED_PRECONDITION', async () => {
    const created = await evaluators.create(ctx, account, { evaluator: { criteria: [code('def evaluate(input):\n    return 1\n', 'python', 'main.py')] } });
    const after = await built(created.name);
    expect(after.state).toBe('BUILD_FAILED');
    expect(after.status).toEqual({ code: 'FAILED_PRECONDITION', message: expect.stringContaining('python3 is not available') });
  });
});
