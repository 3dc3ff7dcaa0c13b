import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { hasScript, spawnBerth, type Result } from '../../packages/cli/src/cli-fixtures.js';

/**
 * What issue 15's "Done when" says a new user does, as the README's CLI section shows it: scaffold a gateway
 * with create-berth (non-interactive, the workspace's create-berth), start the generated project, then with
 * the `berth` CLI register a model, deploy it (`--wait`), upload a dataset with a progress bar (on a
 * pseudo-terminal) and run a batch job watched to completion. Each tool runs as its own process. The project
 * is scaffolded under the repository's node_modules/.cache so its imports resolve to the workspace packages
 * (the packed, installed-from-tarballs run is `npm run check:packages`).
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
const cacheDir = join(root, 'node_modules', '.cache');
mkdirSync(cacheDir, { recursive: true });
const scratch = mkdtempSync(join(cacheDir, 'berth-new-user-'));
const key = 'new-user-flow-key-0123456789';
const children: ChildProcess[] = [];

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
  rmSync(scratch, { recursive: true, force: true });
});

function node(args: string[], cwd: string, env: Record<string, string> = {}): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--conditions=@berth/source', '--import', 'tsx', ...args], { cwd, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** `npm start` of the generated project (from its sources), until its "listening" log line; answers the URL. */
function startGenerated(dir: string): Promise<string> {
  const child = spawn(process.execPath, ['--conditions=@berth/source', '--import', 'tsx', 'src/main.ts'], {
    cwd: dir,
    env: { PATH: process.env.PATH, PORT: '0', BERTH_API_KEY: key, BERTH_DATA_DIR: join(scratch, 'data'), LOG_LEVEL: 'info' },
  });
  children.push(child);
  let stderr = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the generated gateway did not start within 60 s:\n${stderr}`)), 60_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const line = stderr.split('\n').find((l) => l.includes('Berth gateway listening'));
      if (line === undefined) return;
      clearTimeout(timer);
      resolve(String((JSON.parse(line) as { url: unknown }).url));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the generated gateway exited with ${code}:\n${stderr}`));
    });
  });
}

function ok(r: Result): Result {
  expect(r.code, `stdout: ${r.stdout}\nstderr: ${r.stderr}`).toBe(0);
  return r;
}

describe.skipIf(!hasScript)('a new user: npm create berth, npm start, berth', () => {
  it('scaffolds, starts, registers a model, deploys it, uploads a dataset with a progress bar and watches a batch job', async () => {
    ok(await node([join(root, 'packages/create-berth/src/bin.ts'), 'my-gw', '--template', 'gateway', '--yes'], scratch));
    const url = await startGenerated(join(scratch, 'my-gw'));
    const env = { BERTH_CONFIG: join(scratch, 'berth-config.json') };
    const berth = (argv: string[], tty = false) => spawnBerth(argv, { env, tty });

    ok(await berth(['configure', '--base-url', url, '--account', 'my-account', '--api-key', key]));
    const model = 'accounts/my-account/models/llama-8b';
    expect(ok(await berth(['models', 'create', 'llama-8b', '--kind', 'HUB_BASE_MODEL', '--parameter-count', '8000000000', '--checkpoint-format', 'HUB', '--hub-files', 'model.safetensors'])).stdout).toContain(model);
    const deployed = ok(await berth(['deployments', 'create', 'chat', '--base-model', model, '--wait']));
    expect(deployed.stdout).toMatch(/READY/);

    const rows = Array.from({ length: 40 }, (_, i) => JSON.stringify({ custom_id: `q${i}`, body: { messages: [{ role: 'user', content: `Question ${i}` }], max_tokens: 8 } }));
    writeFileSync(join(scratch, 'questions.jsonl'), `${rows.join('\n')}\n`);
    const upload = ok(await berth(['datasets', 'upload', join(scratch, 'questions.jsonl')], true));
    expect(upload.stdout).toMatch(/uploading questions\.jsonl \[#{30}\] 100%/);
    expect(upload.stdout).toContain('dataset accounts/my-account/datasets/questions: READY, 40 examples');

    ok(await berth(['batch', 'create', 'nightly', '--model', model, '--input-dataset', 'questions', '--output-dataset', 'answers']));
    const watched = ok(await berth(['batch', 'watch', 'nightly'], true));
    expect(watched.stdout).toContain(`batch nightly [${'#'.repeat(30)}] 100% COMPLETED 40/40 requests`);
  }, 180_000);
});
