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

/** The outputs the block shows: `# {` comments and their `#  ` continuation lines, joined. */
function shownOutputs(block: string): string[] {
  const outputs: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith('# {')) outputs.push(line.slice(2));
    else if (line.startsWith('#  ') && outputs.length > 0) outputs[outputs.length - 1] += line.slice(3);
  }
  return outputs;
}

/** A shown output as a pattern: literal text, `…` for anything on the line, any temporary deployment id. */
function patternOf(shown: string): RegExp {
  const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/batch-[0-9a-f]{12}/g, 'batch-[0-9a-f]{12}');
  return new RegExp(shown.split(/\s*…\s*/).map(literal).join('[^\\n]*'));
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
    let from = 0;
    for (const shown of outputs) {
      const match = patternOf(shown).exec(stdout.slice(from));
      expect(match, `README output not found (in order):\n${shown}\n--- got ---\n${stdout.slice(from)}`).not.toBeNull();
      from += match!.index + match![0].length;
    }
  }, 90_000);
});
