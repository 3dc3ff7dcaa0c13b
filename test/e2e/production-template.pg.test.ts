import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The production template (templates/gateway-postgres, what `npm create berth -- --template gateway-postgres`
 * scaffolds) started as `npm start` starts it, in its own process on a PostgreSQL server: out of the box it
 * installs the gpux and gpuy runtimes (simulated), so a deployment becomes READY and answers chat; with
 * `BERTH_RUNTIMES=none` it says at start that inference is off and which plugin to add, and a deployment
 * stays CREATING with a status saying so (never READY) while chat answers 503. Needs a server
 * (`DATABASE_URL`): two processes cannot share an embedded database.
 */
const databaseUrl = process.env.DATABASE_URL || undefined;
const main = fileURLToPath(new URL('../../templates/gateway-postgres/src/main.ts', import.meta.url));
const key = 'production-template-key-0123';
const account = 'my-account';
const schemas: string[] = [];
const children: ChildProcess[] = [];

interface Started {
  readonly url: string;
  log(): string;
}

/** Starts the template's main.ts and waits for its "listening" log line (JSON on stderr). */
function startTemplate(env: Record<string, string>): Promise<Started> {
  const schema = `berth_prodtpl_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  schemas.push(schema);
  const child = spawn(process.execPath, ['--conditions=@berth/source', '--import', 'tsx', main], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { PATH: process.env.PATH, DATABASE_URL: databaseUrl, BERTH_DATABASE_SCHEMA: schema, BERTH_API_KEY: key, PORT: '0', LOG_LEVEL: 'info', ...env },
  });
  children.push(child);
  let stderr = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the template did not start within 60 s:\n${stderr}`)), 60_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const line = stderr.split('\n').find((l) => l.includes('Berth gateway listening (PostgreSQL)'));
      if (line === undefined) return;
      clearTimeout(timer);
      resolve({ url: String((JSON.parse(line) as { url: unknown }).url), log: () => stderr });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the template exited with ${code}:\n${stderr}`));
    });
  });
}

async function call(base: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function modelAndDeployment(url: string): Promise<void> {
  const v1 = `/v1/accounts/${account}`;
  expect((await call(url, 'POST', `${v1}/models`, {
    modelId: 'llama-3-8b',
    model: { kind: 'HUB_BASE_MODEL', baseModelDetails: { parameterCount: '8000000000', checkpointFormat: 'HUB', hubFiles: ['model.safetensors'] } },
  })).status).toBe(200);
  expect((await call(url, 'POST', `${v1}/deployments?deploymentId=chat`, { baseModel: `accounts/${account}/models/llama-3-8b` })).status).toBe(200);
}

const chat = (url: string) =>
  call(url, 'POST', '/inference/v1/chat/completions', { model: `accounts/${account}/models/llama-3-8b`, messages: [{ role: 'user', content: 'Hi' }], max_tokens: 4 });

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  if (!databaseUrl) return;
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
});

describe.skipIf(!databaseUrl)('the production template (gateway-postgres) as npm start runs it', () => {
  it('serves inference out of the box: simulated gpux and gpuy runtimes, a deployment READY, chat answered', async () => {
    const { url, log } = await startTemplate({});
    expect(log()).toMatch(/"runtimes":\["gpux \(simulated\)","gpuy \(simulated\)"\]/);
    await modelAndDeployment(url);
    let state = '';
    for (let attempt = 0; attempt < 300 && state !== 'READY'; attempt += 1) {
      state = String((await call(url, 'GET', `/v1/accounts/${account}/deployments/chat?readMask=state`)).body.state);
      if (state !== 'READY') await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(state).toBe('READY');
    expect(await chat(url)).toMatchObject({ status: 200, body: { object: 'chat.completion', system_fingerprint: 'berth-reference' } });
  }, 90_000);

  it('with BERTH_RUNTIMES=none: says so at start, and a deployment stays CREATING with a status naming the plugin to add', async () => {
    const { url, log } = await startTemplate({ BERTH_RUNTIMES: 'none' });
    expect(log()).toContain('inference is off: no accelerator runtime plugin is installed');
    expect(log()).toMatch(/"runtimes":\[\]/);
    await modelAndDeployment(url);
    expect((await chat(url)).status).toBe(503);
    const deployment = (await call(url, 'GET', `/v1/accounts/${account}/deployments/chat`)).body;
    expect(deployment).toMatchObject({ state: 'CREATING', status: { code: 'UNAVAILABLE', message: expect.stringContaining('@berth/plugin-runtime-gpux') } });
  }, 90_000);
});
