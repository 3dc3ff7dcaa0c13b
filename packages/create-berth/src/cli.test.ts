import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { run } from './cli.js';

let cwd: string;
beforeEach(() => {
  cwd = mkdtempSync(join(tmpdir(), 'create-berth-cli-'));
});
afterEach(() => rmSync(cwd, { recursive: true, force: true }));

async function call(argv: string[], options: { input?: string; interactive?: boolean } = {}) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  stdin.end(options.input ?? '');
  const code = await run(argv, { stdin, stdout, stderr, cwd, interactive: options.interactive ?? false });
  return { code, out, err };
}
const manifestIn = (dir: string) => JSON.parse(readFileSync(join(cwd, dir, 'package.json'), 'utf8')) as { name: string; dependencies: Record<string, string> };

describe('create-berth', () => {
  it('takes every answer from flags', async () => {
    const { code, out } = await call(['pg', '--template', 'gateway-postgres', '--name', 'billing-gw']);
    expect(code).toBe(0);
    expect(manifestIn('pg').name).toBe('billing-gw');
    expect(manifestIn('pg').dependencies['@berth/plugin-storage-postgres']).toMatch(/^\^/);
    expect(out).toContain('cd pg\n  npm install && npm start\n  npm install && npm test');
  });

  it('takes the defaults without asking with --yes, even when interactive', async () => {
    const { code } = await call(['--yes'], { interactive: true });
    expect(code).toBe(0);
    expect(manifestIn('my-berth-gateway').dependencies['@berth/plugin-storage-memory']).toMatch(/^\^/);
  });

  it('asks for the directory, the template and the name when interactive', async () => {
    const { code, out } = await call([], { interactive: true, input: 'plugin-dir\n9\n3\n@acme/runtime\n' });
    expect(code).toBe(0);
    expect(out).toContain('Project directory');
    expect(out).toContain('"9" is not one of the choices');
    expect(out).toContain('Third-party runtime plugin');
    expect(manifestIn('plugin-dir').name).toBe('@acme/runtime');
    expect(out).not.toContain('npm start');
  });

  it('asks only for what the flags leave out, accepting a template id as the answer', async () => {
    const { code, out } = await call(['host'], { interactive: true, input: 'embed-fastify\n\n' });
    expect(code).toBe(0);
    expect(out).not.toContain('Project directory');
    expect(manifestIn('host').name).toBe('host');
    expect(manifestIn('host').dependencies.fastify).toMatch(/^\^/);
  });

  it('refuses a non-empty directory with exit code 1 unless --force', async () => {
    mkdirSync(join(cwd, 'busy'));
    writeFileSync(join(cwd, 'busy', 'keep.txt'), 'x');
    const refused = await call(['busy', '-y']);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/busy is not empty; choose another directory or pass --force/);
    expect((await call(['busy', '-y', '--force'])).code).toBe(0);
    expect(manifestIn('busy').name).toBe('busy');
  });

  it('rejects an unknown template naming the choices', async () => {
    const { code, err } = await call(['x', '--template', 'django']);
    expect(code).not.toBe(0);
    expect(err).toContain('choose one of gateway, gateway-postgres, runtime-plugin, embed-fastify');
  });
});
