import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectShownInOrder, readmeSectionShell, shownOutputs, startReadmeGateway, type ReadmeGateway } from './readme-gateway.js';

/**
 * The README's "Train an add-on" walkthrough run as written (its shell blocks, with bash and curl) against
 * a gateway assembled as `npm start` assembles it (the reference trainer, simulated replicas): the JSON
 * outputs it shows appear in order (`…` stands for what differs between runs), the reward curve has
 * four epochs, and the trained add-on mentions harbors more often than its base.
 */
let g: ReadmeGateway | undefined;

beforeAll(async () => {
  g = await startReadmeGateway('rft');
}, 60_000);

afterAll(async () => {
  await g?.close();
});

describe('README: train an add-on on npm start', () => {
  it('runs as written and answers what the README shows', async () => {
    const block = await readmeSectionShell('Train an add-on (reinforcement fine-tuning)');
    const outputs = shownOutputs(block);
    expect(outputs.length).toBeGreaterThanOrEqual(8);
    const script = [`export B=${g!.url}/v1/accounts/my-account I=${g!.url}/inference/v1 AUTH="Authorization: Bearer dev-secret-key"`, block].join('\n');
    const { stdout } = await promisify(execFile)('bash', ['-euc', script.replace(/\n(\s*curl) /g, '\necho\n$1 ')], {
      cwd: g!.workdir, timeout: 150_000, env: { PATH: process.env.PATH },
    });
    expectShownInOrder(outputs, stdout);
    const job = /"outputMetrics":"(.*?)","trainingConfig"/.exec(stdout);
    expect(job, stdout).not.toBeNull();
    const metrics = JSON.parse(JSON.parse(`"${job![1]!}"`) as string) as { rewardCurve: { epoch: number; trainReward: number }[] };
    expect(metrics.rewardCurve.map((e) => e.epoch)).toEqual([1, 2, 3, 4]);
    const count = (model: string) => Number(new RegExp(`^${model}: (\\d) of 8 answers mention a harbor$`, 'm').exec(stdout)?.[1]);
    expect(count('harbor-lora'), stdout).toBeGreaterThan(count('toy-base'));
  }, 180_000);
});
