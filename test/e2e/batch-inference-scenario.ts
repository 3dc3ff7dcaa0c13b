import { expect } from 'vitest';
import { queueWorkers, servingOptions, type GatewayPlugin } from '@berth/core';
import { apiKeyAuth } from '@berth/plugin-auth-api-keys';
import { gpuxRuntime } from '@berth/plugin-runtime-gpux';
import { account, baseModelBody, type Harness } from './harness.js';

/** The gateway of the batch e2e tests on `storage`: queue workers, API keys, simulated GPUX replicas running reference engines. */
export function batchGatewayPlugins(storage: GatewayPlugin): GatewayPlugin[] {
  return [
    storage,
    queueWorkers({ pollIntervalMs: 20 }),
    apiKeyAuth({ cacheTtlMs: 0 }),
    gpuxRuntime({ provisioner: { kind: 'simulated', delays: { schedulingMs: 10, downloadingMs: 10, initializingMs: 10 } } }),
    servingOptions({ pollIntervalMs: 50 }),
  ];
}

const v1 = `/v1/accounts/${account}`;

/** Creates model `id` with a one-replica deployment `id-dep` and waits until it is READY. */
export async function deployReady(h: Harness, id: string): Promise<void> {
  const created = await h.call('POST', `${v1}/models`, { body: { modelId: id, model: baseModelBody({}) } });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const deployment = await h.call('POST', `${v1}/deployments?deploymentId=${id}-dep`, {
    body: { baseModel: `accounts/${account}/models/${id}`, acceleratorType: 'GPUX_H100_80GB', minReplicaCount: 1 },
  });
  expect(deployment.status, JSON.stringify(deployment.body)).toBe(200);
  const until = Date.now() + 20_000;
  for (;;) {
    const r = await h.call('GET', `${v1}/deployments/${id}-dep`);
    if (r.body.state === 'READY') return;
    if (Date.now() > until) throw new Error(`deployment ${id}-dep stayed ${String(r.body.state)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Creates dataset `id` and uploads `jsonl` as its rows.jsonl through the signed-URL flow; answers the dataset after validation (READY). */
export async function uploadJsonl(h: Harness, id: string, jsonl: string): Promise<Record<string, unknown>> {
  expect((await h.call('POST', `${v1}/datasets`, { body: { datasetId: id, dataset: { displayName: id } } })).status).toBe(200);
  const endpoint = await h.call<{ filenameToSignedUrls: Record<string, string> }>('POST', `${v1}/datasets/${id}:getUploadEndpoint`, {
    body: { filenameToSize: { 'rows.jsonl': String(Buffer.byteLength(jsonl)) } },
  });
  expect(endpoint.status).toBe(200);
  expect((await fetch(endpoint.body.filenameToSignedUrls['rows.jsonl']!, { method: 'PUT', body: jsonl })).status).toBe(200);
  const validated = await h.call('POST', `${v1}/datasets/${id}:validateUpload`, { body: {} });
  expect(validated.status, JSON.stringify(validated.body)).toBe(200);
  return (await h.call('GET', `${v1}/datasets/${id}`)).body;
}

/** The JSONL files of a dataset, downloaded through its signed download URLs. */
export async function downloadLines(h: Harness, dataset: string): Promise<Record<string, Record<string, unknown>[]>> {
  const download = await h.call<{ filenameToSignedUrls: Record<string, string> }>('POST', `${v1}/datasets/${dataset}:getDownloadEndpoint`, { body: {} });
  expect(download.status, JSON.stringify(download.body)).toBe(200);
  const files: Record<string, Record<string, unknown>[]> = {};
  for (const [name, url] of Object.entries(download.body.filenameToSignedUrls)) {
    const text = await (await fetch(url)).text();
    files[name] = text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>);
  }
  return files;
}

/**
 * Uploads 302 rows through the JSON upload flow (290 valid, 5 without a body, 2 not JSON, 5 the engine
 * refuses: `n` 17), runs a job with n = 2 into a new output dataset, polls it to COMPLETED (progress never moves
 * backwards), and checks the downloaded results and errors against the counters.
 */
export async function runBatchScenario(h: Harness, modelId: string, prefix: string): Promise<void> {
  const lines: string[] = [];
  for (let i = 0; i < 300; i += 1) {
    if (i % 60 === 7) lines.push(JSON.stringify({ custom_id: `row-${i}` }));
    else if (i % 60 === 11) lines.push(JSON.stringify({ custom_id: `row-${i}`, body: { messages: [{ role: 'user', content: `q ${i}` }], n: 17 } }));
    else lines.push(JSON.stringify({ custom_id: `row-${i}`, method: 'POST', url: '/v1/chat/completions', body: { messages: [{ role: 'user', content: `question ${i}` }], max_tokens: 4 } }));
    // Two lines that are not JSON: the upload records them (validationDetails) and the job fails them.
    if (i === 100 || i === 200) lines.push(`{"custom_id": "broken-${i}", "body": `);
  }
  const jsonl = `${lines.join('\n')}\n`;
  const input = `${prefix}-batch-in`;
  expect(await uploadJsonl(h, input, jsonl)).toMatchObject({ state: 'READY', validationDetails: { malformedRowCount: '7' } });

  const output = `${prefix}-batch-out`;
  const created = await h.call('POST', `${v1}/batchInferenceJobs?batchInferenceJobId=${prefix}-job`, {
    body: { model: `accounts/${account}/models/${modelId}`, inputDatasetId: input, outputDatasetId: output, inferenceParameters: { n: 2, temperature: 0.3 } },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  expect(created.body.state).toBe('JOB_STATE_CREATING');
  const name = String(created.body.name);
  let job: Record<string, unknown> = created.body;
  let processed = 0;
  const until = Date.now() + 45_000;
  const seen = new Set<string>();
  while (job.state !== 'JOB_STATE_COMPLETED' && job.state !== 'JOB_STATE_FAILED') {
    if (Date.now() > until) throw new Error(`job stayed ${String(job.state)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
    job = (await h.call('GET', `/v1/${name}`)).body;
    seen.add(String(job.state));
    const now = Number((job.jobProgress as Record<string, number>).totalProcessedRequests);
    expect(now).toBeGreaterThanOrEqual(processed);
    processed = now;
  }
  expect(job.state, JSON.stringify(job.status)).toBe('JOB_STATE_COMPLETED');
  expect(job.outputDatasetId).toBe(`accounts/${account}/datasets/${output}`);
  const progress = job.jobProgress as Record<string, number>;
  expect(progress).toMatchObject({ totalInputRequests: 302, totalProcessedRequests: 302, successfullyProcessedRequests: 290, failedRequests: 12, outputRows: 290, percent: 100 });
  expect(progress.inputTokens).toBeGreaterThan(0);
  expect(progress.outputTokens).toBeGreaterThan(0);

  const dataset = await h.call('GET', `${v1}/datasets/${output}`);
  expect(dataset.body).toMatchObject({ state: 'READY', exampleCount: '290', sourceJobName: name });
  const files = await downloadLines(h, output);
  expect(Object.keys(files).sort()).toEqual(['errors.jsonl', 'results.jsonl']);
  const results = files['results.jsonl']!;
  const errors = files['errors.jsonl']!;
  expect(results).toHaveLength(290);
  expect(errors).toHaveLength(12);
  const ids = [...results, ...errors].map((r) => r.custom_id);
  expect(new Set(ids).size).toBe(301); // the two lines that are not JSON have no custom_id (null)
  expect(new Set([...results, ...errors].map((r) => r.row)).size).toBe(302);
  for (const r of results) expect(((r.response as { body: { choices: unknown[] } }).body.choices)).toHaveLength(2);
  expect(errors.filter((e) => (e.error as { code: string }).code === 'invalid_row')).toHaveLength(7);
  expect(errors.filter((e) => e.status_code === 400)).toHaveLength(5);
}
