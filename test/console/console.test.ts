import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { artifacts, buildConsole, haveChromium, launchChromium, startGateway, type ConsoleGateway, type RunningBrowser } from './console-harness.js';

/**
 * The web console driven in Debian's Chromium against a gateway on the embedded default with the reference
 * runtime: sign in with the keyboard, register and deploy a model, scale it, upload a dataset, watch a batch
 * job's progress bar reach 100%, create and revoke an API key, stream a playground answer, a narrow screen,
 * and a role that sees less. Every wait is on a state of the page, bounded by `waitTimeout`.
 * Screenshots go to artifacts/console/. Without /usr/bin/chromium the suite is skipped, except in CI
 * (`CI` set), where .ci/run installs it and its absence is a failure.
 */
const waitTimeout = 20_000;
const testTimeout = 90_000;
const adminKey = 'admin-secret-key';
const account = 'my-account';

const run = haveChromium || process.env.CI ? describe : describe.skip;

run('web console in Chromium', () => {
  let gateway: ConsoleGateway;
  let chromium: RunningBrowser;
  let page: Page;
  const api = (path: string, key: string, init: RequestInit = {}) =>
    fetch(`${gateway.url}/v1/accounts/${account}${path}`, { ...init, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' } });
  const shot = (name: string) => page.screenshot({ path: join(artifacts, `${name}.png`), fullPage: true });
  const nav = (name: string) => page.getByRole('navigation', { name: 'Console sections' }).getByRole('link', { name, exact: true }).click();
  const heading = (name: string) => page.getByRole('heading', { level: 1, name, exact: true }).waitFor();
  // Browser-side expressions are strings: this file is type-checked for Node, without the DOM's types.
  /** Waits until the progress bar named `name` shows `value`. */
  // (A function, not a string, for waitForFunction: the page's CSP forbids evaluating strings there.)
  const progressReaches = (name: string, value: number) =>
    page.waitForFunction(([label, target]) => {
      const { document } = globalThis as unknown as { document: { querySelector(selector: string): { value?: number } | null } };
      return document.querySelector(`progress[aria-label="${label}"]`)?.value === target;
    }, [name, value] as const, { timeout: waitTimeout, polling: 100 });
  const focusedName = () => page.evaluate<string | null>(`document.activeElement?.getAttribute('name') ?? null`);

  beforeAll(async () => {
    await buildConsole();
    gateway = await startGateway();
    chromium = await launchChromium();
    chromium.context.setDefaultTimeout(waitTimeout);
    page = await chromium.context.newPage();
    page.on('dialog', (dialog) => void dialog.accept());
  }, 180_000);

  afterAll(async () => {
    await chromium?.close();
    await gateway?.close();
  });

  it('serves the page with its security headers, and signs in from the keyboard', async () => {
    const answer = await page.goto(`${gateway.url}/console/`);
    expect(answer?.status()).toBe(200);
    expect(answer?.headers()['content-security-policy']).toContain("script-src 'self'");
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    // Tab from the top of the page to the key field (skip link, account, key), type, submit with Enter.
    for (let presses = 0; presses < 10; presses += 1) {
      if ((await focusedName()) === 'apiKey') break;
      await page.keyboard.press('Tab');
    }
    expect(await focusedName()).toBe('apiKey');
    await page.keyboard.type(adminKey);
    await shot('sign-in');
    await page.keyboard.press('Enter');
    await heading('Models');
    expect(await page.getByRole('banner').textContent()).toContain('admin');
    expect(await page.evaluate<string[]>('Object.keys(sessionStorage)')).toContain('berth.console.session');
  }, testTimeout);

  it('registers a model, deploys it and scales the deployment', async () => {
    await page.getByText('Register a model').click();
    await page.getByLabel('Model id').fill('llama-3-8b');
    await page.getByLabel('Display name').fill('Llama 3 8B');
    await page.getByRole('button', { name: 'Register' }).click();
    await page.getByRole('link', { name: 'Llama 3 8B' }).click();
    await heading('Llama 3 8B');
    await page.getByLabel('Deployment id').fill('chat');
    await page.getByLabel('Min replicas').fill('1');
    await page.getByRole('button', { name: 'Deploy', exact: true }).click();
    await page.getByRole('list', { name: 'Deployed model references' }).getByRole('link', { name: 'chat' }).waitFor();

    await nav('Deployments');
    const card = page.getByRole('listitem', { name: 'Deployment chat' });
    await card.getByText('1 ready of 1').waitFor();
    await card.getByText('ready', { exact: true }).waitFor();
    await card.getByLabel('Replicas').fill('2');
    await card.getByRole('button', { name: 'Scale' }).click();
    await card.getByText('2 ready of 2').waitFor();
    await shot('deployments');
  }, testTimeout);

  it('uploads a dataset with a progress bar', async () => {
    await nav('Datasets');
    await page.getByText('Upload a dataset').click();
    await page.getByLabel('Dataset id').fill('questions');
    const rows = ['harbor', 'ship', 'tide', 'quay'].map((word, i) =>
      JSON.stringify({ custom_id: `q${i + 1}`, body: { messages: [{ role: 'user', content: `Name a ${word}` }], max_tokens: 16 } }));
    await page.getByLabel('File').setInputFiles({ name: 'questions.jsonl', mimeType: 'application/jsonl', buffer: Buffer.from(`${rows.join('\n')}\n`) });
    await page.getByRole('button', { name: 'Upload' }).click();
    await progressReaches('Upload progress', 100);
    await page.getByRole('row', { name: /questions/ }).getByText('ready').waitFor();
  }, testTimeout);

  it("watches a batch job's progress bar reach 100%", async () => {
    await nav('Batch jobs');
    await page.getByText('Start a batch job').click();
    await page.getByLabel('Job id').fill('nightly');
    await page.getByLabel('Input dataset').selectOption('questions');
    await page.getByLabel('Output dataset id').fill('answers');
    await page.getByRole('button', { name: 'Start' }).click();
    const job = page.getByRole('listitem', { name: 'Job nightly' });
    await job.waitFor();
    await progressReaches('Progress of nightly', 100);
    await job.getByText('completed', { exact: true }).waitFor();
    await job.getByText('4 of 4 requests processed').waitFor();
    await shot('batch-job');
  }, testTimeout);

  it("follows a reinforcement fine-tuning job to 100% with its reward curve", async () => {
    // An evaluator (the console lists evaluators but does not write them): 1 when the answer mentions a harbor.
    const evaluator = await api('/evaluators', adminKey, { method: 'POST', body: JSON.stringify({ evaluatorId: 'harbor', evaluator: {
      displayName: 'Harbor', criteria: [{ name: 'harbor', type: 'CODE_SNIPPETS', codeSnippets: { language: 'javascript',
        fileContents: { 'main.js': 'export function evaluate(input) { return /\\bharbor\\b/i.test(input.answer) ? 1 : 0; }' } } }],
    } }) });
    expect(evaluator.status).toBe(200);
    await expect.poll(async () => ((await (await api('/evaluators/harbor', adminKey)).json()) as { state?: string }).state, { timeout: waitTimeout }).toBe('ACTIVE');

    await nav('Datasets');
    await page.getByText('Upload a dataset').click();
    await page.getByLabel('Dataset id').fill('places');
    const prompts = [0, 1, 2, 3].map((i) => JSON.stringify({ messages: [{ role: 'user', content: `Describe place number ${i}.` }], ground_truth: 'harbor' }));
    await page.getByLabel('File').setInputFiles({ name: 'places.jsonl', mimeType: 'application/jsonl', buffer: Buffer.from(`${prompts.join('\n')}\n`) });
    await page.getByRole('button', { name: 'Upload' }).click();
    await page.getByRole('row', { name: /places/ }).getByText('ready').waitFor();

    await nav('Fine-tuning jobs');
    await page.getByText('Start a reinforcement fine-tuning job').click();
    await page.getByLabel('Job id').fill('toy');
    await page.getByLabel('Training dataset').selectOption({ label: 'places' });
    await page.getByLabel('Evaluator').selectOption({ label: 'Harbor' });
    await page.getByLabel('Epochs').fill('2');
    await page.getByRole('button', { name: 'Start' }).click();
    const job = page.getByRole('listitem', { name: 'Job toy' });
    await job.waitFor();
    await page.waitForFunction(() => {
      const { document } = globalThis as unknown as { document: { querySelector(selector: string): { value?: number } | null } };
      return document.querySelector('progress[aria-label="Progress of toy"]')?.value === 100;
    }, undefined, { timeout: 90_000, polling: 200 });
    await job.getByText('completed', { exact: true }).waitFor();
    await job.getByRole('img', { name: /^Reward of toy by epoch: training reward .* at epoch 2/ }).waitFor();
    await shot('fine-tuning-job');
  }, 150_000);

  it('creates an API key, shows its secret once, and revokes it', async () => {
    await nav('Users and API keys');
    await page.getByRole('heading', { name: /API keys of/ }).waitFor();
    await page.getByLabel('Key name').fill('ci-key');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = await page.getByTestId('new-key').inputValue();
    expect(secret).toMatch(/^berth_/);
    expect((await api('/models', secret)).status).toBe(200);
    await shot('api-key-created');
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.getByTestId('new-key').count()).toBe(0);
    await page.getByRole('button', { name: 'Revoke key ci-key' }).click();
    await page.getByRole('row', { name: /ci-key/ }).waitFor({ state: 'detached' });
    expect((await api('/models', secret)).status).toBe(401);
  }, testTimeout);

  it('streams a playground answer', async () => {
    await nav('Playground');
    await page.getByLabel('Model').selectOption({ label: 'Llama 3 8B' });
    await page.getByLabel('Prompt', { exact: true }).fill('Name a harbor');
    const streamed = page.waitForResponse((response) => response.url().endsWith('/inference/v1/responses'));
    await page.getByRole('button', { name: 'Send' }).click();
    expect((await streamed).headers()['content-type']).toContain('text/event-stream');
    await page.getByRole('status').getByText(/^Done/).waitFor();
    expect((await page.locator('output.answer').textContent())?.trim().length).toBeGreaterThan(0);
    await shot('playground');
  }, testTimeout);

  it('fits a narrow screen (390 px) without scrolling sideways', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await nav('Batch jobs');
    await page.getByRole('listitem', { name: 'Job nightly' }).waitFor();
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await shot('narrow-batch-jobs');
    await page.setViewportSize({ width: 1280, height: 860 });
  }, testTimeout);

  it('shows an inference-user only what the role may do', async () => {
    expect((await api('/users?userId=reader', adminKey, { method: 'POST', body: JSON.stringify({ role: 'inference-user' }) })).status).toBe(200);
    const created = await api('/users/reader/apiKeys', adminKey, { method: 'POST', body: JSON.stringify({ apiKey: { displayName: 'reader' } }) });
    const { key } = (await created.json()) as { key: string };
    const reader = await chromium.context.newPage();
    try {
      await reader.goto(`${gateway.url}/console/`);
      await reader.getByLabel('API key').fill(key);
      await reader.getByRole('button', { name: 'Sign in' }).click();
      await reader.getByRole('heading', { level: 1, name: 'Models' }).waitFor();
      const links = await reader.getByRole('navigation', { name: 'Console sections' }).getByRole('link').allTextContents();
      expect(links).toEqual(['Models', 'Deployments', 'Playground']);
      expect(await reader.getByText('Register a model').count()).toBe(0);
      await reader.getByRole('navigation', { name: 'Console sections' }).getByRole('link', { name: 'Deployments' }).click();
      await reader.getByRole('listitem', { name: 'Deployment chat' }).waitFor();
      expect(await reader.getByRole('button', { name: /Scale|Delete/ }).count()).toBe(0);
    } finally {
      await reader.close();
    }
  }, testTimeout);
});
