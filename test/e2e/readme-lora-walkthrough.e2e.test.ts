import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readmeSectionShell, startReadmeGateway, type ReadmeGateway } from './readme-gateway.js';

/**
 * The README's "Serving LoRA add-ons" walkthrough run as written (its shell blocks, with bash, curl and
 * python3) against a gateway assembled as `npm start` assembles it, checked against what the README shows:
 * `# {…}` comments are outputs (`…` stands for what differs between runs), `# <model>: "<text>"` comments are
 * the chat answers' content. Only two waits are added: for the deployment to be READY and for the
 * add-ons to be DEPLOYED, which a reader does by running the next command a moment later.
 */
const hasPython = spawnSync('python3', ['--version']).status === 0;

let g: ReadmeGateway | undefined;

beforeAll(async () => {
  g = await startReadmeGateway('lora');
}, 60_000);

afterAll(async () => {
  await g?.close();
});

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
    const block = await readmeSectionShell('Serving LoRA add-ons');
    const outputs = shownOutputs(block);
    expect(outputs.length).toBeGreaterThanOrEqual(7);
    const script = [
      `export B=${g!.url}/v1/accounts/my-account I=${g!.url}/inference/v1 AUTH="Authorization: Bearer dev-secret-key"`,
      block
        .replace(/^(curl -s -H "\$AUTH" "\$B\/deployments\/tiny\?readMask=state,replicaCount")/m,
          'until curl -s -H "$AUTH" "$B/deployments/tiny?readMask=state" | grep -q READY; do sleep 0.1; done\n$1')
        .replace(/^(curl -s -H "\$AUTH" "\$B\/deployedModels\?filter=)/m,
          'while curl -s -H "$AUTH" "$B/deployedModels?readMask=state" | grep -q DEPLOYING; do sleep 0.1; done\n$1'),
    ].join('\n');
    const { stdout } = await promisify(execFile)('bash', ['-euc', script.replace(/\n(\s*curl) /g, '\necho\n$1 ')], {
      cwd: g!.workdir, timeout: 60_000, env: { PATH: process.env.PATH },
    });
    let from = 0;
    for (const pattern of outputs) {
      const match = pattern.exec(stdout.slice(from));
      expect(match, `README output not found (in order):\n${pattern.source}\n--- got ---\n${stdout.slice(from)}`).not.toBeNull();
      from += match!.index + match![0].length;
    }
  }, 90_000);
});
