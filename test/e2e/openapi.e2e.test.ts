import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { gatewayRoutes } from '@berth/plugin-transport-fastify';
import { startHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h.close());

describe('OpenAPI document, docs page and health endpoints', () => {
  it('serves an OpenAPI 3.1 document that a standard validator accepts', async () => {
    const response = await fetch(`${h.url}/openapi.json`);
    expect(response.status).toBe(200);
    const doc = (await response.json()) as { openapi: string; info: { version: string }; paths: Record<string, Record<string, unknown>> };
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('4.259.0');
    const validator = new Validator();
    const result = await validator.validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('lists every route the server registers', async () => {
    const doc = (await (await fetch(`${h.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const routes = gatewayRoutes(h.gateway);
    expect(routes.length).toBeGreaterThan(30);
    for (const route of routes) {
      // Signed URLs (dataset and model files) are served but handed out by answers, not documented.
      const documented = doc.paths[route.path]?.[route.method.toLowerCase()];
      if (route.signedUrl) expect(documented, `${route.method} ${route.path}`).toBeUndefined();
      else expect(documented, `${route.method} ${route.path}`).toBeDefined();
    }
    expect(routes.filter((route) => route.signedUrl).map((route) => `${route.method} ${route.path}`).sort()).toEqual([
      'GET /v1/accounts/{account_id}/datasets/{dataset_id}/files/{filename}',
      'GET /v1/accounts/{account_id}/models/{model_id}/files/{filename}',
      'PUT /v1/accounts/{account_id}/datasets/{dataset_id}/files/{filename}',
      'PUT /v1/accounts/{account_id}/models/{model_id}/files/{filename}',
    ]);
    for (const path of [
      '/v1/accounts/{account_id}/models/{model_id}',
      '/v1/accounts/{account_id}/datasets',
      '/v1/accounts/{account_id}/users/{user_id}',
      '/v1/accounts/{account_id}/deploymentShapes/{deployment_shape_id}',
      '/v1/accounts/{account_id}/reinforcementFineTuningJobs/{reinforcement_fine_tuning_job_id}',
      '/v1/accounts/{account_id}/batchInferenceJobs/{batch_inference_job_id}',
      '/v1/accounts/{account_id}/deployments',
      '/v1/accounts/{account_id}/batchInferenceJobs',
      '/v1/accounts/{account_id}/deployments/{deployment_id}',
    ]) expect(doc.paths[path], path).toBeDefined();
  });

  it('serves an API reference page, /healthz and /readyz without credentials', async () => {
    const docs = await fetch(`${h.url}/docs`);
    expect(docs.status).toBe(200);
    expect(docs.headers.get('content-type')).toContain('text/html');
    const html = await docs.text();
    expect(html).toContain('/v1/accounts/{account_id}/deployments');
    expect(html).not.toMatch(/<script[^>]+src=/);
    expect(await (await fetch(`${h.url}/healthz`)).json()).toEqual({ status: 'ok' });
    expect(await (await fetch(`${h.url}/readyz`)).json()).toEqual({ status: 'ready' });
  });
});
