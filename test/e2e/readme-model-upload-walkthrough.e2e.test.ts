import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readmeSectionShell, startReadmeGateway, type ReadmeGateway } from './readme-gateway.js';

/**
 * The README's "Uploading model files" walkthrough run as written (its shell blocks, with bash, curl and
 * node) against a gateway assembled as `npm start` assembles it; every output the README shows on a line
 * of its own (`# {…}`, `# READY`, `# UPLOADING`, `# same bytes`) must be printed, in order.
 */
let gateway: ReadmeGateway;

beforeAll(async () => {
  gateway = await startReadmeGateway('models');
}, 60_000);

afterAll(async () => {
  await gateway?.close();
});

describe('README: the model upload walkthrough on npm start', () => {
  it('runs as written and prints what the README shows', async () => {
    const block = await readmeSectionShell('Uploading model files');
    const shown = block.split('\n').filter((line) => /^# (\{.*\}|READY|UPLOADING|same bytes)$/.test(line)).map((line) => line.slice(2));
    expect(shown.length).toBeGreaterThanOrEqual(9);
    const script = `export B=${gateway.url}/v1/accounts/my-account AUTH="Authorization: Bearer dev-secret-key"\n${block.replace(/\n(\s*curl) /g, '\necho\n$1 ')}`;
    const { stdout } = await promisify(execFile)('bash', ['-euc', script], { cwd: gateway.workdir, timeout: 60_000, env: { PATH: process.env.PATH } });
    let from = 0;
    for (const output of shown) {
      const at = stdout.indexOf(output, from);
      expect(at, `README output not found (in order):\n${output}\n--- got ---\n${stdout.slice(from)}`).toBeGreaterThanOrEqual(0);
      from = at + output.length;
    }
  }, 90_000);
});
