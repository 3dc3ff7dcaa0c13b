import { execFile, spawnSync } from 'node:child_process';
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
 * The README's "Serving LoRA add-ons" walkthrough run as written (its shell blocks, with bash, curl and
 * python3) against a gateway assembled as `npm start` assembles it, checked against what the README shows:
 * `# {…}` comments are outputs (`…` stands for what differs between runs), `# <model>: "<text>"` comments are
 * the chat answers' content. Only two waits are added: for the deployment to be READY and for the
 * add-ons to be DEPLOYED, which a reader does by running the next command a moment later.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
const hasPython = spawnSync('python3', ['--version']).status === 0;

let gateway: Gateway;
let server: RunningServer;
let workdir: string;

beforeAll(async () => {
  const settings = readSettings({ BERTH_API_KEY: 'dev-secret-key', PORT: '0', LOG_LEVEL: 'error' });
  gateway = buildGateway(settings);
  await gateway.start();
  server = await serveGateway(gateway, { host: settings.host, port: settings.port });
  workdir = await mkdtemp(join(tmpdir(), 'berth-readme-lora-'));
}, 60_000);

afterAll(async () => {
  await server?.close();
  await gateway?.stop();
  if (workdir) await rm(workdir, { recursive: true, force: true });
});

/** The section's shell blocks, in order, as one script. */
async function walkthrough(): Promise<string> {
  const readme = await readFile(`${root}README.md`, 'utf8');
  const start = readme.indexOf('## Serving LoRA add-ons');
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!).join('\n');
}

/** What the script should print, in order: JSON outputs (with `…`) and chat contents. */
function shownOutputs(script: string): RegExp[] {
  const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const outputs: string[] = [];
  const patterns: RegExp[] = [];
  let json = false;
  for (const line of script.split('\n')) {
    const answer = /^# [\w-]+: +"(.*)"/.exec(line);
    if (line.startsWith('# {')) {
      outputs.push(line.slice(2));
      json = true;
    } else if (json && line.startsWith('#   ')) outputs[outputs.length - 1] += line.slice(1).trim();
    else {
      json = false;
      if (answer) outputs.push(`"content":"${answer[1]}"`);
    }
  }
  for (const shown of outputs) patterns.push(new RegExp(shown.split(/\s*…\s*/).map(literal).join('[^\\n]*')));
  return patterns;
}

describe('README: the LoRA add-ons walkthrough on npm start', () => {
  it.skipIf(!hasPython)('runs as written and answers what the README shows', async () => {
    const block = await walkthrough();
    const outputs = shownOutputs(block);
    expect(outputs.length).toBeGreaterThanOrEqual(7);
    const script = [
      `export B=${server.url}/v1/accounts/my-account I=${server.url}/inference/v1 AUTH="Authorization: Bearer dev-secret-key"`,
      block
        .replace(/^(curl -s -H "\$AUTH" "\$B\/deployments\/tiny\?readMask=state,replicaCount")/m,
          'until curl -s -H "$AUTH" "$B/deployments/tiny?readMask=state" | grep -q READY; do sleep 0.1; done\n$1')
        .replace(/^(curl -s -H "\$AUTH" "\$B\/deployedModels\?filter=)/m,
          'while curl -s -H "$AUTH" "$B/deployedModels?readMask=state" | grep -q DEPLOYING; do sleep 0.1; done\n$1'),
    ].join('\n');
    const { stdout } = await promisify(execFile)('bash', ['-euc', script.replace(/\n(\s*curl) /g, '\necho\n$1 ')], {
      cwd: workdir, timeout: 60_000, env: { PATH: process.env.PATH },
    });
    let from = 0;
    for (const pattern of outputs) {
      const match = pattern.exec(stdout.slice(from));
      expect(match, `README output not found (in order):\n${pattern.source}\n--- got ---\n${stdout.slice(from)}`).not.toBeNull();
      from += match!.index + match![0].length;
    }
  }, 90_000);
});
