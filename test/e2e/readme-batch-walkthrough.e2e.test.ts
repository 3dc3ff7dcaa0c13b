import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '@berth/core';
import { serveGateway, type RunningServer } from '@berth/plugin-transport-fastify';
import { buildGateway } from '../../templates/gateway/src/build-gateway.js';
import { readSettings } from '../../templates/gateway/src/gateway-config.js';
import { expectShownInOrder, shownOutputs } from './readme-gateway.js';

/**
 * The README's batch walkthrough ("Batch inference jobs") run as written, with bash and curl, against a
 * gateway assembled as `npm start` assembles it (memory storage, simulated replicas), and its output
 * checked against the answers the README shows: each `# {…}` comment after a command is the output, with
 * `…` standing for parts that differ between runs (ids, times, the engine's text).
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
const marker = 'A walkthrough on `npm start`';

let gateway: Gateway;
let server: RunningServer;
let workdir: string;

beforeAll(async () => {
  const settings = readSettings({ BERTH_API_KEY: 'dev-secret-key', PORT: '0', LOG_LEVEL: 'error' });
  gateway = buildGateway(settings);
  await gateway.start();
  server = await serveGateway(gateway, { host: settings.host, port: settings.port });
  workdir = await mkdtemp(join(tmpdir(), 'berth-readme-batch-'));
}, 60_000);

afterAll(async () => {
  await server?.close();
  await gateway?.stop();
  if (workdir) await rm(workdir, { recursive: true, force: true });
});

/** The walkthrough's shell block. */
async function walkthrough(): Promise<string> {
  const readme = await readFile(`${root}README.md`, 'utf8');
  const start = readme.indexOf('```sh\n', readme.indexOf(marker)) + '```sh\n'.length;
  return readme.slice(start, readme.indexOf('```', start));
}

describe('README: the batch inference walkthrough on npm start', () => {
  it('runs as written and answers what the README shows', async () => {
    const block = await walkthrough();
    const outputs = shownOutputs(block);
    expect(outputs.length).toBeGreaterThanOrEqual(10);
    // Against this server, and with the polling line repeated until the job has finished.
    const script = block
      .replace('http://127.0.0.1:8080', server.url)
      .replace(/^(curl -s -H "\$AUTH" "\$B\/batchInferenceJobs\/nightly\?readMask=state,jobProgress")/m,
        'until curl -s -H "$AUTH" "$B/batchInferenceJobs/nightly?readMask=state" | grep -q JOB_STATE_COMPLETED; do sleep 0.1; done\n$1');
    const { stdout } = await promisify(execFile)('bash', ['-euc', script.replace(/\n(curl|cat) /g, '\necho\n$1 ')], {
      cwd: workdir, timeout: 60_000, env: { PATH: process.env.PATH },
    });
    expectShownInOrder(outputs, stdout);
  }, 90_000);
});
