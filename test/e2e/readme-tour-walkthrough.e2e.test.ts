import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectShownInOrder, readmeSectionShell, shownOutputs, startReadmeGateway, type ReadmeGateway } from './readme-gateway.js';

/**
 * The README's "A five-minute tour" and "Serving a model" run as written, one after the other (bash and
 * curl), against a gateway assembled as `npm start` assembles it; each answer the README shows after a
 * command (`# {…}`, `# data: …`, with `…` for what differs between runs) must be printed, in order. The
 * `npm start` line is the gateway this test starts itself.
 */
let gateway: ReadmeGateway;

beforeAll(async () => {
  gateway = await startReadmeGateway('tour');
}, 60_000);

afterAll(async () => {
  await gateway?.close();
});

describe('README: the five-minute tour and serving a model, on npm start', () => {
  it('runs as written and answers what the README shows', async () => {
    const tour = await readmeSectionShell('A five-minute tour');
    const serving = await readmeSectionShell('Serving a model: deployment, chat, scale, delete');
    const block = `${tour}\n${serving}`;
    const shown = shownOutputs(block);
    expect(shown.length).toBeGreaterThanOrEqual(20);
    expect(block).toContain('BERTH_API_KEY=dev-secret-key npm start\n');
    const script = block
      .replace('BERTH_API_KEY=dev-secret-key npm start\n', '')
      .replaceAll('http://127.0.0.1:8080', gateway.url)
      .replace(/\n(curl) /g, '\necho\n$1 ');
    const { stdout } = await promisify(execFile)('bash', ['-euc', script], { cwd: gateway.workdir, timeout: 60_000, env: { PATH: process.env.PATH } });
    expectShownInOrder(shown, stdout);
  }, 90_000);
});
