import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, statSync, readFileSync, writeFileSync } from 'node:fs';
import { buildSafetensors } from '@berth/core/testing';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { parse as parseYaml } from 'yaml';
import { account, adminKey, hasScript, maxDatasetFileBytes, spawnBerth, startCliGateway, type CliGateway, type Result } from './cli-fixtures.js';

/**
 * `berth` end to end against a gateway started here: every command's table and JSON output, the
 * gateway's errors and usage errors with their exit codes, progress on a terminal and off one, and
 * profiles. The cases run in order: later ones use what earlier ones created (model, deployment, datasets).
 */
let g: CliGateway;
beforeAll(async () => {
  g = await startCliGateway();
});
afterAll(async () => g.close());

const model = `accounts/${account}/models/llama-8b`;
const modelFlags = ['--kind', 'HUB_BASE_MODEL', '--display-name', 'Llama 3 8B', '--model-type', 'llama', '--parameter-count', '8000000000', '--checkpoint-format', 'HUB', '--hub-files', 'model.safetensors', '--context-length', '8192'];

/** Rows of an aligned table as objects, cut at the header's column starts (misaligned cells would not parse back). */
function parseTable(text: string): Record<string, string>[] {
  const [header, ...rows] = text.trimEnd().split('\n');
  const starts: Array<{ name: string; at: number }> = [];
  for (const match of header!.matchAll(/\S+(?: \S+)*/g)) starts.push({ name: match[0], at: match.index });
  return rows.map((row) => Object.fromEntries(starts.map((s, i) => [s.name, row.slice(s.at, starts[i + 1]?.at ?? row.length).trim()])));
}

/** The terminal redraw (carriage return, erase line) as one visible character. */
const redraws = (text: string) => text.replaceAll('\r\x1b[2K', '⟲');

/** A loopback port nothing listens on (bound, then closed). */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function ok(r: Result): Result {
  expect(r.code, `stdout: ${r.stdout}\nstderr: ${r.stderr}`).toBe(0);
  return r;
}

const json = <T = Record<string, unknown>>(r: Result): T => JSON.parse(ok(r).stdout) as T;

/** FIELD / VALUE rows as an object. */
const detail = (r: Result) => Object.fromEntries(parseTable(ok(r).stdout).map((row) => [row.FIELD!, row.VALUE!]));

describe('berth: profiles', () => {
  const noEnv = { BERTH_BASE_URL: undefined, BERTH_ACCOUNT: undefined, BERTH_API_KEY: undefined };

  it('configure writes the profile 0600 and later commands use it', async () => {
    const r = ok(await g.berth(['configure', '--profile', 'ci', '--base-url', g.url, '--account', account, '--api-key', adminKey], { env: noEnv }));
    expect(r.stdout).toBe(`saved profile "ci" to ${g.env.BERTH_CONFIG}\n`);
    expect(statSync(g.env.BERTH_CONFIG).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(g.env.BERTH_CONFIG, 'utf8'))).toEqual({ profiles: { ci: { baseUrl: g.url, account, apiKey: adminKey } } });
    const listed = ok(await g.berth(['--profile', 'ci', 'users', 'list'], { env: noEnv }));
    expect(parseTable(listed.stdout).map((row) => row.ID)).toContain('admin');
  });

  it('environment variables override the profile, flags override both', async () => {
    ok(await g.berth(['configure', '--account', 'nobody', '--api-key', 'wrong-key', '--base-url', g.url], { env: noEnv }));
    const fromProfile = await g.berth(['models', 'list'], { env: noEnv });
    expect(fromProfile.code).toBe(1);
    expect(fromProfile.stderr).toMatch(/^error: .+\(UNAUTHENTICATED, HTTP 401\)\n$/);
    ok(await g.berth(['models', 'list'], { env: { ...noEnv, BERTH_API_KEY: adminKey, BERTH_ACCOUNT: account } }));
    ok(await g.berth(['models', 'list', '--api-key', adminKey, '--account', account], { env: noEnv }));
  });

  it('configure --list masks keys; a missing profile or no flags off a terminal is a usage error', async () => {
    const listed = parseTable(ok(await g.berth(['configure', '--list'])).stdout);
    expect(listed).toContainEqual({ PROFILE: 'ci', 'BASE URL': g.url, ACCOUNT: account, 'API KEY': 'cli-…6789' });
    expect(JSON.stringify(listed)).not.toContain(adminKey);
    const missing = await g.berth(['--profile', 'nope', 'models', 'list']);
    expect(missing).toMatchObject({ code: 2, stderr: expect.stringContaining('no profile "nope"') });
    expect(await g.berth(['configure'])).toMatchObject({ code: 2, stderr: expect.stringContaining('nothing to configure') });
    expect(await g.berth(['configure', '--base-url', 'ftp://x'])).toMatchObject({ code: 2, stderr: expect.stringContaining('must start with http') });
  });
});

describe('berth: resources', () => {
  it('models: create, get, list (table, JSON, YAML), update with a mask, filter, order, pages, delete', async () => {
    const created = detail(await g.berth(['models', 'create', 'llama-8b', ...modelFlags]));
    expect(created).toMatchObject({ name: model, displayName: 'Llama 3 8B', kind: 'HUB_BASE_MODEL', contextLength: '8192' });
    expect(JSON.parse(created.baseModelDetails!)).toMatchObject({ parameterCount: '8000000000', hubFiles: ['model.safetensors'] });
    ok(await g.berth(['models', 'create', 'small', ...modelFlags, '--display-name', 'Small', '--context-length', '2048']));

    expect(parseTable(ok(await g.berth(['models', 'list'])).stdout)).toEqual([
      expect.objectContaining({ ID: 'llama-8b', 'DISPLAY NAME': 'Llama 3 8B', KIND: 'HUB_BASE_MODEL', STATE: 'READY' }),
      expect.objectContaining({ ID: 'small', 'DISPLAY NAME': 'Small', KIND: 'HUB_BASE_MODEL', STATE: 'READY' }),
    ]);
    const listed = json<{ models: Array<{ name: string }>; totalSize: number }>(await g.berth(['models', 'list', '-o', 'json']));
    expect(listed.models.map((m) => m.name)).toEqual([model, `accounts/${account}/models/small`]);
    const yaml = parseYaml(ok(await g.berth(['models', 'get', 'llama-8b', '-o', 'yaml'])).stdout) as Record<string, unknown>;
    expect(yaml).toMatchObject({ name: model, contextLength: 8192 });
    expect(json(await g.berth(['models', 'get', model, '--output', 'json']))).toEqual(yaml);

    const updated = json(await g.berth(['models', 'update', 'llama-8b', '--description', 'the big one', '--set', 'contextLength=4096', '-o', 'json']));
    expect(updated).toMatchObject({ description: 'the big one', contextLength: 4096, displayName: 'Llama 3 8B' });
    const file = join(g.dir, 'patch.yaml');
    writeFileSync(file, 'displayName: Llama Three\n');
    expect(json(await g.berth(['models', 'update', 'llama-8b', '-f', file, '-o', 'json']))).toMatchObject({ displayName: 'Llama Three', description: 'the big one' });

    const filtered = parseTable(ok(await g.berth(['models', 'list', '--filter', 'contextLength < 3000'])).stdout);
    expect(filtered.map((row) => row.ID)).toEqual(['small']);
    const ordered = parseTable(ok(await g.berth(['models', 'list', '--order-by', 'displayName desc'])).stdout);
    expect(ordered.map((row) => row.ID)).toEqual(['small', 'llama-8b']);
    const page = await g.berth(['models', 'list', '--page-size', '1']);
    expect(parseTable(ok(page).stdout).map((row) => row.ID)).toEqual(['llama-8b']);
    const token = /--page-token (\S+)/.exec(page.stderr)?.[1];
    expect(token).toBeDefined();
    expect(parseTable(ok(await g.berth(['models', 'list', '--page-size', '1', '--page-token', token!])).stdout).map((row) => row.ID)).toEqual(['small']);
    const all = json<{ models: unknown[] }>(await g.berth(['models', 'list', '--page-size', '1', '--all', '-o', 'json']));
    expect(all.models).toHaveLength(2);

    expect(ok(await g.berth(['models', 'delete', 'small'])).stdout).toBe('deleted model small\n');
    const gone = await g.berth(['models', 'get', 'small']);
    expect(gone).toEqual({ code: 1, stdout: '', stderr: `error: accounts/${account}/models/small not found (NOT_FOUND, HTTP 404)\n` });
  });

  it('users and API keys', async () => {
    const user = detail(await g.berth(['users', 'create', 'bob', '--role', 'user', '--email', 'bob@example.com']));
    expect(user).toMatchObject({ name: `accounts/${account}/users/bob`, role: 'user', email: 'bob@example.com' });
    expect(json(await g.berth(['users', 'update', 'bob', '--role', 'contributor', '-o', 'json']))).toMatchObject({ role: 'contributor', email: 'bob@example.com' });
    expect(detail(await g.berth(['users', 'get', 'bob']))).toMatchObject({ role: 'contributor', email: 'bob@example.com', state: 'READY' });
    expect(parseTable(ok(await g.berth(['users', 'list', '--filter', 'role = "contributor"'])).stdout)).toEqual([
      expect.objectContaining({ ID: 'bob', ROLE: 'contributor', EMAIL: 'bob@example.com', STATE: 'READY' }),
    ]);
    const key = json<{ keyId: string; key: string }>(await g.berth(['api-keys', 'create', '--user', 'bob', '--display-name', 'ci', '-o', 'json']));
    expect(key.key).toMatch(/^berth_/);
    // The new key works as bob's credential.
    expect(ok(await g.berth(['models', 'list', '--api-key', key.key])).stdout).toContain('llama-8b');
    expect(parseTable(ok(await g.berth(['api-keys', 'list', '--user', 'bob'])).stdout)).toEqual([expect.objectContaining({ ID: key.keyId, 'DISPLAY NAME': 'ci' })]);
    expect(ok(await g.berth(['api-keys', 'delete', key.keyId, '--user', 'bob'])).stdout).toBe(`deleted API key ${key.keyId}\n`);
    expect(await g.berth(['api-keys', 'list'])).toMatchObject({ code: 2, stderr: expect.stringContaining("required option '--user <id>'") });
    expect(ok(await g.berth(['users', 'rm', 'bob'])).stdout).toBe('deleted user bob\n');
  });

  it('deployment shapes', async () => {
    const shape = json(await g.berth(['shapes', 'create', 'h100', '--base-model', model, '--accelerator-type', 'GPUX_H100_80GB', '--accelerator-count', '1', '-o', 'json']));
    expect(shape).toMatchObject({ name: `accounts/${account}/deploymentShapes/h100`, acceleratorType: 'GPUX_H100_80GB', acceleratorCount: 1 });
    expect(detail(await g.berth(['deployment-shapes', 'update', 'h100', '--display-name', 'One H100']))).toMatchObject({ displayName: 'One H100' });
    expect(parseTable(ok(await g.berth(['deployment-shapes', 'list'])).stdout)).toEqual([
      expect.objectContaining({ ID: 'h100', 'BASE MODEL': 'llama-8b', ACCELERATOR: 'GPUX_H100_80GB', COUNT: '1' }),
    ]);
    expect(detail(await g.berth(['deployment-shapes', 'get', 'h100']))).toMatchObject({ baseModel: model });
    expect(ok(await g.berth(['deployment-shapes', 'delete', 'h100'])).stdout).toBe('deleted deployment shape h100\n');
  });

  it('deployments: create --wait off a terminal prints a line per change until READY, then the deployment', async () => {
    const r = ok(await g.berth(['deployments', 'create', 'chat', '--base-model', model, '--accelerator-type', 'GPUX_H100_80GB', '--min-replicas', '1', '--wait', '--interval', '20']));
    const [progress, table] = [r.stdout.slice(0, r.stdout.indexOf('FIELD')), r.stdout.slice(r.stdout.indexOf('FIELD'))];
    expect(progress).not.toContain('\r');
    const lines = progress.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(lines[0]).toMatch(/^deployments chat .*CREATING replicas 0\/\d ready/);
    expect(lines.at(-1)).toMatch(/^deployments chat \[#{30}\] 100% READY replicas 1\/1 ready \(replicaCount 1\)$/);
    expect(detail({ code: 0, stdout: table, stderr: '' })).toMatchObject({ name: `accounts/${account}/deployments/chat`, state: 'READY', replicaCount: '1' });
  });

  it('deployments: create --wait on a terminal redraws one line; list, update, scale, delete, undelete', async () => {
    const r = ok(await g.berth(['deployments', 'create', 'chat-2', '--base-model', model, '--accelerator-type', 'GPUX_H100_80GB', '--min-replicas', '1', '--max-replicas', '2', '--wait', '--interval', '20'], { tty: true }));
    const progress = r.stdout.slice(0, r.stdout.indexOf('FIELD'));
    expect(progress.startsWith('\r\x1b[2Kdeployments chat-2 ')).toBe(true);
    expect(redraws(progress)).toMatch(/⟲deployments chat-2 \[#{30}\] 100% READY replicas 1\/1 ready \(replicaCount 1\)\n$/);
    expect(progress.split('\n')).toHaveLength(2); // one line, redrawn, ended once

    expect(parseTable(ok(await g.berth(['deployments', 'list', '--order-by', 'name'])).stdout)).toEqual([
      { ID: 'chat', 'BASE MODEL': 'llama-8b', ACCELERATOR: 'GPUX_H100_80GB', STATE: 'READY', REPLICAS: '1', MIN: '1', MAX: '1' },
      { ID: 'chat-2', 'BASE MODEL': 'llama-8b', ACCELERATOR: 'GPUX_H100_80GB', STATE: 'READY', REPLICAS: '1', MIN: '1', MAX: '2' },
    ]);
    expect(json(await g.berth(['deployments', 'update', 'chat-2', '--display-name', 'second', '-o', 'json']))).toMatchObject({ displayName: 'second', maxReplicaCount: 2 });
    expect(ok(await g.berth(['deployments', 'scale', 'chat-2', '--replicas', '2'])).stdout).toBe('scaled deployment chat-2\n');
    expect(json(await g.berth(['deployments', 'get', 'chat-2', '-o', 'json']))).toMatchObject({ desiredReplicaCount: 2 });
    const tooMany = await g.berth(['deployments', 'scale', 'chat-2', '--replicas', '3']);
    expect(tooMany.code).toBe(1);
    expect(tooMany.stderr).toMatch(/^error: .*(INVALID_ARGUMENT|FAILED_PRECONDITION), HTTP 400\)\n$/);
    expect(ok(await g.berth(['deployments', 'delete', 'chat-2', '--ignore-checks'])).stdout).toBe('deleted deployment chat-2\n');
    expect(parseTable(ok(await g.berth(['deployments', 'list'])).stdout).map((row) => row.ID)).toEqual(['chat']);
    expect(parseTable(ok(await g.berth(['deployments', 'list', '--show-deleted'])).stdout).map((row) => row.ID)).toContain('chat-2');
    expect(detail(await g.berth(['deployments', 'undelete', 'chat-2']))).toMatchObject({ name: `accounts/${account}/deployments/chat-2` });
    expect(parseTable(ok(await g.berth(['deployments', 'list'])).stdout).map((row) => row.ID)).toContain('chat-2');
    // An undeleted deployment comes back through CREATING: watch follows it to READY.
    const watched = ok(await g.berth(['deployments', 'watch', 'chat-2', '--interval', '20', '-o', 'json']));
    expect(JSON.parse(watched.stdout)).toMatchObject({ name: `accounts/${account}/deployments/chat-2`, state: 'READY' });
    expect(watched.stderr.trimEnd().split('\n').at(-1)).toMatch(/^deployments chat-2 \[#{30}\] 100% READY replicas (\d)\/\1 ready/);
  });

  it('deployed models: an add-on on a deployment that enables them', async () => {
    ok(await g.berth(['models', 'create', 'lora', '--kind', 'HUB_PEFT_ADDON', '--base-model', model, '--set', 'peftDetails.r=8', '--set', 'peftDetails.targetModules=["q_proj"]']));
    ok(await g.berth(['deployments', 'update', 'chat-2', '--set', 'enableAddons=true']));
    const created = json(await g.berth(['deployed-models', 'create', 'lora-on-chat-2', '--model', `accounts/${account}/models/lora`, '--deployment', `accounts/${account}/deployments/chat-2`, '-o', 'json']));
    expect(created).toMatchObject({ name: `accounts/${account}/deployedModels/lora-on-chat-2`, model: `accounts/${account}/models/lora` });
    expect(parseTable(ok(await g.berth(['deployed-models', 'list'])).stdout)).toContainEqual(expect.objectContaining({ ID: 'lora-on-chat-2', MODEL: 'lora', DEPLOYMENT: 'chat-2' }));
    expect(json(await g.berth(['deployed-models', 'update', 'lora-on-chat-2', '--description', 'pinned', '-o', 'json']))).toMatchObject({ description: 'pinned' });
    expect(detail(await g.berth(['deployed-models', 'get', 'lora-on-chat-2']))).toMatchObject({ description: 'pinned' });
    const twice = await g.berth(['deployed-models', 'create', 'again', '--model', `accounts/${account}/models/lora`, '--deployment', `accounts/${account}/deployments/chat-2`]);
    expect(twice).toMatchObject({ code: 1, stderr: expect.stringMatching(/already exists \(ALREADY_EXISTS, HTTP 409\)\n$/) });
    expect(ok(await g.berth(['deployed-models', 'delete', 'lora-on-chat-2'])).stdout).toBe('deleted deployed model lora-on-chat-2\n');
  });
});

describe('berth: model files', () => {
  it('models upload: a folder through signed URLs with one byte bar, validated READY; a bad file is refused naming it', async () => {
    const folder = join(g.dir, 'checkpoint');
    mkdirSync(join(folder, 'tokenizer'), { recursive: true });
    const weights = buildSafetensors([
      { name: 'model.embed_tokens.weight', dtype: 'BF16', shape: [64, 16] },
      { name: 'model.layers.0.self_attn.q_proj.weight', dtype: 'BF16', shape: [16, 16] },
      { name: 'model.norm.weight', dtype: 'F32', shape: [16] },
    ]);
    writeFileSync(join(folder, 'model.safetensors'), weights);
    writeFileSync(join(folder, 'config.json'), JSON.stringify({ model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_size: 16, vocab_size: 64 }));
    writeFileSync(join(folder, 'tokenizer', 'vocab.json'), '{"a":0}');
    const hubFiles = 'config.json,model.safetensors,tokenizer/vocab.json';
    ok(await g.berth(['models', 'create', 'uploaded', '--kind', 'HUB_BASE_MODEL', '--checkpoint-format', 'HUB', '--hub-files', hubFiles]));
    const r = ok(await g.berth(['models', 'upload', 'uploaded', folder]));
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^uploading uploaded \[-{30}\] {3}0% 0 B \/ [\d.]+ KiB {2}config\.json \(1\/3\)$/);
    expect(lines.at(-2)).toMatch(/^uploading uploaded \[#{30}\] 100% ([\d.]+ KiB) \/ \1 {2}tokenizer\/vocab\.json \(3\/3\)$/);
    expect(lines.at(-1)).toBe(`model accounts/${account}/models/uploaded: READY`);
    expect(json(await g.berth(['models', 'get', 'uploaded', '-o', 'json']))).toMatchObject({ state: 'READY', baseModelDetails: { modelType: 'llama' } });

    ok(await g.berth(['models', 'create', 'broken', '--kind', 'HUB_BASE_MODEL', '--checkpoint-format', 'HUB', '--hub-files', 'config.json,model.safetensors']));
    const bad = join(g.dir, 'bad');
    mkdirSync(bad);
    writeFileSync(join(bad, 'model.safetensors'), 'not a safetensors file');
    writeFileSync(join(bad, 'config.json'), readFileSync(join(folder, 'config.json')));
    const refused = await g.berth(['models', 'upload', 'broken', bad, '-o', 'json']);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(/uploading broken .*\n/);
    expect(refused.stderr).toMatch(/\nerror: file "model\.safetensors": .+ \(INVALID_ARGUMENT, HTTP 400\)\n$/);
    expect(await g.berth(['models', 'upload', 'broken', join(g.dir, 'nothing-here')])).toMatchObject({ code: 1, stderr: expect.stringMatching(/^error: cannot read .*nothing-here: ENOENT/) });
  });
});

describe('berth: evaluators', () => {
  it('create from a YAML file --wait until ACTIVE, list, get, update, delete; a broken one fails the wait', async () => {
    const file = join(g.dir, 'evaluator.yaml');
    writeFileSync(file, 'displayName: Exact\ncriteria:\n  - name: exact\n    type: EXACT_MATCH\n    exactMatch: {}\n');
    const r = ok(await g.berth(['evaluators', 'create', 'exact', '-f', file, '--wait', '--interval', '20']));
    expect(r.stdout.split('\n')[0]).toMatch(/^evaluators exact (BUILDING|ACTIVE)$/);
    expect(detail({ ...r, stdout: r.stdout.slice(r.stdout.indexOf('FIELD')) })).toMatchObject({ name: `accounts/${account}/evaluators/exact`, state: 'ACTIVE', displayName: 'Exact' });
    expect(parseTable(ok(await g.berth(['evaluators', 'list'])).stdout)).toEqual([expect.objectContaining({ ID: 'exact', 'DISPLAY NAME': 'Exact', STATE: 'ACTIVE' })]);
    expect(json(await g.berth(['evaluators', 'update', 'exact', '--description', 'answers equal', '-o', 'json']))).toMatchObject({ description: 'answers equal', state: 'ACTIVE' });
    expect(json(await g.berth(['evaluators', 'get', 'exact', '-o', 'json']))).toMatchObject({ criteria: [{ name: 'exact', type: 'EXACT_MATCH' }] });
    expect(ok(await g.berth(['evaluators', 'delete', 'exact'])).stdout).toBe('deleted evaluator exact\n');

    const broken = JSON.stringify([{ codeSnippets: { language: 'javascript', fileContents: { 'main.js': 'export function evaluate( {' } } }]);
    const failed = await g.berth(['evaluators', 'create', 'broken', '--criteria', broken, '--wait', '--interval', '20']);
    expect(failed.code).toBe(1);
    expect(failed.stdout.trimEnd().split('\n').at(-1)).toBe('evaluators broken BUILD_FAILED');
    expect(failed.stderr).toMatch(/^error: evaluators broken ended BUILD_FAILED: .+\n$/);
  });
});

const batchRow = (i: number) => JSON.stringify({ custom_id: `row-${i}`, body: { messages: [{ role: 'user', content: `question ${i}` }], max_tokens: 4 } });

describe('berth: datasets and jobs with progress', () => {
  it('datasets upload off a terminal: a line per 10% of bytes, then the validation result', async () => {
    const file = join(g.dir, 'batch_rows.jsonl');
    const rows = Array.from({ length: 120 }, (_, i) => (i === 30 ? '{"custom_id": "broken", ' : batchRow(i)));
    writeFileSync(file, `${rows.join('\n')}\n`);
    const size = statSync(file).size;
    const r = ok(await g.berth(['datasets', 'upload', file, '--display-name', 'Batch rows']));
    expect(r.stdout).not.toContain('\r');
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^uploading batch_rows\.jsonl \[-{30}\] {3}0% 0 B \/ /);
    const done = lines.findIndex((l) => l.startsWith('uploading batch_rows.jsonl [#') && l.includes('100%'));
    expect(lines[done]).toBe(`uploading batch_rows.jsonl [${'#'.repeat(30)}] 100% ${(size / 1024).toFixed(1)} KiB / ${(size / 1024).toFixed(1)} KiB`);
    expect(lines.slice(done + 1)).toEqual([
      `dataset accounts/${account}/datasets/batch-rows: READY, 119 examples`,
      '1 malformed rows (kept in the file, skipped by jobs):',
      '  batch_rows.jsonl line 31: not valid JSON',
    ]);
    expect(detail(await g.berth(['datasets', 'get', 'batch-rows']))).toMatchObject({ displayName: 'Batch rows', state: 'READY', exampleCount: '119' });
    expect(parseTable(ok(await g.berth(['datasets', 'list'])).stdout)).toContainEqual(expect.objectContaining({ ID: 'batch-rows', STATE: 'READY', EXAMPLES: '119' }));
  });

  it('datasets create, upload on a terminal (in process) into it, -o json keeps progress off stdout, delete', async () => {
    ok(await g.berth(['datasets', 'create', 'chat-set', '--format', 'CHAT']));
    const file = join(g.dir, 'chat.jsonl');
    writeFileSync(file, '{"messages":[{"role":"user","content":"hi"}]}\n');
    const r = ok(await g.berth(['datasets', 'upload', file, '--dataset', 'chat-set'], { tty: true }));
    expect(redraws(r.stdout)).toMatch(/^⟲uploading chat\.jsonl \[-{30}\] {3}0% 0 B \/ 46 B⟲uploading chat\.jsonl \[#{30}\] 100% 46 B \/ 46 B\n/);
    expect(r.stdout).toContain(`dataset accounts/${account}/datasets/chat-set: READY, 1 examples\n`);
    const refused = await g.berth(['datasets', 'upload', file, '--dataset', 'chat-set']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^error: .+\(FAILED_PRECONDITION, HTTP 400\)\n$/);
    const other = join(g.dir, 'other.jsonl');
    writeFileSync(other, '{"messages":[{"role":"user","content":"a"}]}\n{"messages":[{"role":"user","content":"b"}]}\n');
    const asJson = await g.berth(['datasets', 'upload', other, '--format', 'CHAT', '-o', 'json']);
    expect(JSON.parse(ok(asJson).stdout)).toMatchObject({ name: `accounts/${account}/datasets/other`, state: 'READY', exampleCount: '2', format: 'CHAT' });
    expect(asJson.stderr).toContain('uploading other.jsonl');
    expect(ok(await g.berth(['datasets', 'delete', 'other'])).stdout).toBe('deleted dataset other\n');
    const big = join(g.dir, 'big.jsonl');
    writeFileSync(big, `${batchRow(0)}\n`.repeat(Math.ceil((2 * maxDatasetFileBytes) / batchRow(0).length)));
    const tooBig = await g.berth(['datasets', 'upload', big]);
    expect(tooBig.code).toBe(1);
    expect(tooBig.stderr).toBe(`error: the file is larger than the ${maxDatasetFileBytes} bytes a dataset file may hold (INVALID_ARGUMENT, HTTP 413)\n`);
    expect(json(await g.berth(['datasets', 'get', 'big', '-o', 'json']))).toMatchObject({ state: 'UPLOADING' });
    const missing = await g.berth(['datasets', 'upload', join(g.dir, 'absent.jsonl')]);
    expect(missing).toMatchObject({ code: 1, stderr: expect.stringMatching(/^error: cannot read .*absent\.jsonl: ENOENT/) });
  });

  it('batch: create --wait off a terminal follows jobProgress to COMPLETED; list, get, cancel of a finished job, delete', async () => {
    const r = ok(await g.berth(['batch', 'create', 'job-1', '--model', model, '--input-dataset', 'batch-rows', '--output-dataset', 'batch-out', '--wait', '--interval', '20']));
    const progress = r.stdout.slice(0, r.stdout.indexOf('FIELD')).trimEnd().split('\n');
    expect(progress.at(-1)).toBe(`batch job-1 [${'#'.repeat(30)}] 100% COMPLETED 120/120 requests 1 failed`);
    for (const line of progress) expect(line).toMatch(/^batch job-1 \[[#-]{30}\] +\d+% [A-Z_]+/);
    const percents = progress.map((line) => Number(/(\d+)%/.exec(line)![1]));
    expect([...percents].sort((a, b) => a - b)).toEqual(percents); // never backwards
    expect(parseTable(ok(await g.berth(['batch', 'list'])).stdout)).toEqual([
      expect.objectContaining({ ID: 'job-1', MODEL: 'llama-8b', INPUT: 'batch-rows', STATE: 'JOB_STATE_COMPLETED', PROGRESS: '100' }),
    ]);
    expect(json(await g.berth(['batch', 'get', 'job-1', '-o', 'json']))).toMatchObject({ state: 'JOB_STATE_COMPLETED', jobProgress: { totalInputRequests: 120, failedRequests: 1 } });
    const cancel = await g.berth(['batch', 'cancel', 'job-1']);
    expect(cancel.code).toBe(1);
    expect(cancel.stderr).toMatch(/^error: .+\(FAILED_PRECONDITION, HTTP 400\)\n$/);
    expect(ok(await g.berth(['batch', 'delete', 'job-1'])).stdout).toBe('deleted batch inference job job-1\n');
  });

  it('rft: create, watch until it ends (exit 1 naming the state and why), cancel refused, list, get, delete', async () => {
    const exact = JSON.stringify([{ name: 'exact', type: 'EXACT_MATCH', exactMatch: {} }]);
    ok(await g.berth(['evaluators', 'create', 'judge', '--criteria', exact, '--wait', '--interval', '20']));
    // chat-set is a CHAT dataset: the job fails in VALIDATING, saying reinforcement fine-tuning takes RL datasets.
    const created = json(await g.berth(['rft', 'create', 'tune', '--dataset', 'chat-set', '--evaluator', `accounts/${account}/evaluators/judge`, '--base-model', model, '-o', 'json']));
    expect(created).toMatchObject({ name: `accounts/${account}/reinforcementFineTuningJobs/tune`, trainingConfig: { baseModel: model } });
    const watched = await g.berth(['rft', 'watch', 'tune', '--interval', '20']);
    expect(watched.code).toBe(1);
    const lines = watched.stdout.trimEnd().split('\n');
    expect(lines.at(-1)).toMatch(/^rft tune \[[#-]{30}\] +\d+% FAILED/);
    expect(watched.stderr).toMatch(/^error: rft tune ended JOB_STATE_FAILED: .*format CHAT.*\n$/);
    const cancel = await g.berth(['rft', 'cancel', 'tune']);
    expect(cancel).toMatchObject({ code: 1, stderr: expect.stringMatching(/^error: .+\(FAILED_PRECONDITION, HTTP 400\)\n$/) });
    expect(parseTable(ok(await g.berth(['rft-jobs', 'list'])).stdout)).toEqual([expect.objectContaining({ ID: 'tune', DATASET: 'chat-set', EVALUATOR: 'judge', STATE: 'JOB_STATE_FAILED' })]);
    expect(detail(await g.berth(['rft', 'get', 'tune']))).toMatchObject({ state: 'JOB_STATE_FAILED', dataset: `accounts/${account}/datasets/chat-set` });
    expect(ok(await g.berth(['rft', 'delete', 'tune'])).stdout).toBe('deleted reinforcement fine-tuning job tune\n');
  });
});

describe('berth: usage errors exit 2, other failures 1', () => {
  it.each([
    [['models', 'frob'], "unknown command 'frob'"],
    [['models', 'get'], "missing required argument 'id'"],
    [['models', 'list', '--bogus'], "unknown option '--bogus'"],
    [['models', 'list', '-o', 'xml'], "argument 'xml' is invalid"],
    [['models', 'list', '--page-size', '0'], '--page-size must be a positive integer'],
    [['models', 'update', 'llama-8b'], 'nothing to update'],
    [['models', 'create', 'x', '--context-length', 'lots'], '--context-length must be an integer'],
    [['models', 'update', 'llama-8b', '--set', 'oops'], '--set takes path=value'],
    [['deployments', 'scale', 'chat'], "required option '--replicas <count>'"],
    [['users', 'create', 'x', '--role', 'king'], "argument 'king' is invalid"],
    [['completion', 'tcsh'], "'tcsh' is invalid"],
    [['models'], 'Usage: berth models'],
  ])('berth %j', async (argv, message) => {
    const r = await g.berth(argv);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
  });

  it('help and version exit 0', async () => {
    const help = ok(await g.berth(['deployments', 'create', '--help']));
    expect(help.stdout).toContain('--wait');
    expect(help.stdout).toContain('--accelerator-type <value>');
    expect(ok(await g.berth(['--version'])).stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });

  it('an unreachable gateway and a refused body exit 1 with the reason', async () => {
    const closed = await closedPort();
    const down = await g.berth(['models', 'list', '--base-url', `http://127.0.0.1:${closed}`]);
    expect(down).toEqual({ code: 1, stdout: '', stderr: `error: cannot reach the gateway at http://127.0.0.1:${closed}: ECONNREFUSED\n` });
    const bad = await g.berth(['models', 'create', 'bad', '--kind', 'HUB_BASE_MODEL']);
    expect(bad).toEqual({ code: 1, stdout: '', stderr: 'error: baseModelDetails is required when kind is HUB_BASE_MODEL (INVALID_ARGUMENT, HTTP 400)\n' });
  });
});

describe('berth as its own process', () => {
  it('exit codes and messages of the real binary', async () => {
    const listed = await spawnBerth(['models', 'list', '-o', 'json'], { env: g.env });
    expect(listed.code, listed.stderr).toBe(0);
    expect((JSON.parse(listed.stdout) as { models: unknown[] }).models.length).toBeGreaterThan(0);
    expect(await spawnBerth(['models', 'get', 'absent'], { env: g.env })).toMatchObject({ code: 1, stderr: `error: accounts/${account}/models/absent not found (NOT_FOUND, HTTP 404)\n` });
    expect(await spawnBerth(['models', 'list', '--nope'], { env: g.env })).toMatchObject({ code: 2 });
  });

  it.runIf(hasScript)('on a pseudo-terminal: the upload bar and batch watch redraw in place', async () => {
    const file = join(g.dir, 'pty_rows.jsonl');
    writeFileSync(file, `${Array.from({ length: 60 }, (_, i) => batchRow(i)).join('\n')}\n`);
    const upload = await spawnBerth(['datasets', 'upload', file], { env: g.env, tty: true });
    expect(upload.code, upload.stdout).toBe(0);
    expect(redraws(upload.stdout)).toMatch(/⟲uploading pty_rows\.jsonl \[#{30}\] 100% [\d.]+ KiB \/ [\d.]+ KiB\r?\n/);
    expect(upload.stdout).toContain(`dataset accounts/${account}/datasets/pty-rows: READY, 60 examples`);

    ok(await g.berth(['batch', 'create', 'job-pty', '--model', model, '--input-dataset', 'pty-rows', '--output-dataset', 'pty-out']));
    const watched = await spawnBerth(['batch', 'watch', 'job-pty', '--interval', '20'], { env: g.env, tty: true });
    expect(watched.code, watched.stdout).toBe(0);
    expect(watched.stdout.startsWith('\r\x1b[2Kbatch job-pty ')).toBe(true);
    expect(watched.stdout).toContain(`\r\x1b[2Kbatch job-pty [${'#'.repeat(30)}] 100% COMPLETED 60/60 requests\r\n`);
  });

  it.runIf(hasScript)('configure on a terminal asks for what no flag gave, and writes the profile 0600', async () => {
    const env = { ...g.env, BERTH_CONFIG: join(g.dir, 'asked.json') };
    const r = await spawnBerth(['configure', '--profile', 'asked', '--base-url', g.url], { env, tty: true, input: `${account}\n${adminKey}\n` });
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toContain('Account id: ');
    expect(r.stdout).toContain('API key: ');
    expect(JSON.parse(readFileSync(env.BERTH_CONFIG, 'utf8'))).toEqual({ profiles: { asked: { baseUrl: g.url, account, apiKey: adminKey } } });
    expect(statSync(env.BERTH_CONFIG).mode & 0o777).toBe(0o600);
  });
});
