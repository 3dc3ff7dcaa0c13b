import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeyManagerToken, coreServicesToken, systemContext, type GatewayPlugin } from '@berth/core';
import { adminKey, account, baseModelBody, startHarness, type Harness } from '../e2e/harness.js';
import { requestFor, type Fixtures, type FuzzRequest } from './arbitraries.js';
import { operationsOf, surfaceOf, type OpenApiDocument, type Surface } from './operations.js';
import { reproducers } from './reproducers.js';

/**
 * Schema-driven fuzzing of every route the running gateway documents in `/openapi.json`, plus the fixed
 * reproducers of issue 9. Bounded: a fixed number of requests per route from a fixed seed (the same
 * requests every run), each with its own time limit. Asserts zero 5xx, zero hangs, and every error in its
 * surface's format.
 */
export interface FuzzSetup {
  readonly plugins: GatewayPlugin[];
  cleanup?(): Promise<void>;
}

/** Requests per documented route. */
const runsPerRoute = 24;
/** A request not answered within this is a hang. */
const requestTimeoutMs = 5_000;
const seed = 0x9b_e47;

export interface Answer {
  readonly status: number;
  readonly text: string;
}

/** Why an answer breaks the rules, or undefined when it keeps them. */
export function violation(surface: Surface, answer: Answer): string | undefined {
  if (answer.status >= 500) return `status ${answer.status}`;
  if (answer.status < 400) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    return 'error body is not JSON';
  }
  const record = (body ?? {}) as Record<string, unknown>;
  switch (surface) {
    case 'control': {
      const keys = Object.keys(record).sort().join(',');
      if (keys !== 'code,details,message') return `control-plane error has keys ${keys}`;
      if (!Number.isInteger(record.code) || typeof record.message !== 'string' || !Array.isArray(record.details)) return 'control-plane error has wrong types';
      return undefined;
    }
    case 'inference': {
      const error = record.error as Record<string, unknown> | undefined;
      if (Object.keys(record).join(',') !== 'error' || error === null || typeof error !== 'object') return 'inference error is not {error}';
      if (typeof error.message !== 'string' || typeof error.type !== 'string') return 'inference error lacks message/type';
      if (!(error.param === null || typeof error.param === 'string') || !(error.code === null || typeof error.code === 'string')) return 'inference error param/code';
      return undefined;
    }
    case 'image':
      return typeof record.error_message === 'string' ? undefined : 'image error is not {error_message}';
  }
}

export function fuzzSuite(label: string, setup: () => Promise<FuzzSetup>): void {
  describe(`fuzz (${label})`, () => {
    let h: Harness;
    let cleanup: (() => Promise<void>) | undefined;
    let otherKey = '';
    let fixtures: Fixtures;
    const v1 = `/v1/accounts/${account}`;
    const keyOf = (auth: FuzzRequest['auth']) => ({ admin: adminKey, other: otherKey, wrong: 'wrong-key-0123456789', none: undefined })[auth];

    const send = async (request: FuzzRequest): Promise<Answer> => {
      const headers: Record<string, string> = {};
      const key = keyOf(request.auth);
      if (key !== undefined) headers.authorization = `Bearer ${key}`;
      if (request.body !== undefined) headers['content-type'] = 'application/json';
      const response = await fetch(`${h.url}${request.url}`, {
        method: request.method,
        headers,
        ...(request.body !== undefined ? { body: request.body } : {}),
        signal: AbortSignal.timeout(requestTimeoutMs),
      });
      return { status: response.status, text: await response.text() };
    };

    /** Sends `request`; `failure` says what went wrong, if anything (a hang included). */
    const probe = async (request: FuzzRequest): Promise<{ answer?: Answer; failure?: string }> => {
      let answer: Answer;
      try {
        answer = await send(request);
      } catch (error) {
        return { failure: `${describeRequest(request)} → no answer within ${requestTimeoutMs} ms (${String(error)})` };
      }
      const why = violation(surfaceOf(request.url), answer);
      return why === undefined ? { answer } : { answer, failure: `${describeRequest(request)} → ${why}: ${answer.text.slice(0, 200)}` };
    };

    beforeAll(async () => {
      const { plugins, cleanup: done } = await setup();
      cleanup = done;
      h = await startHarness({ plugins });
      const ok = async (method: string, path: string, body?: unknown) => {
        const response = await h.call(method, path, body === undefined ? {} : { body });
        if (response.status !== 200) throw new Error(`fixture ${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`);
        return response.body;
      };
      const model = (id: string) => `accounts/${account}/models/${id}`;
      await ok('POST', `${v1}/models`, { modelId: 'm', model: baseModelBody() });
      await ok('POST', `${v1}/models`, { modelId: 'm2', model: baseModelBody() });
      await ok('POST', `${v1}/models`, { modelId: 'addon', model: { kind: 'HUB_PEFT_ADDON', peftDetails: { baseModel: model('m'), r: 8, targetModules: ['q_proj'] } } });
      await ok('POST', `${v1}/datasets`, { datasetId: 'ds', dataset: { format: 'CHAT', externalUrl: 'https://example.com/ds.jsonl' } });
      await ok('POST', `${v1}/datasets`, { datasetId: 'ds2', dataset: { format: 'CHAT' } });
      await ok('POST', `${v1}/deploymentShapes?deploymentShapeId=s`, { baseModel: model('m') });
      await ok('POST', `${v1}/deployments?deploymentId=d`, { baseModel: model('m') });
      await ok('POST', `${v1}/users?userId=bob`, { role: 'user', email: 'bob@example.com' });
      await ok('POST', `${v1}/batchInferenceJobs?batchInferenceJobId=bj`, { model: model('m'), inputDatasetId: 'ds' });
      const services = h.gateway.resolve(coreServicesToken);
      const ctx = systemContext('fuzz');
      await services.users.create(ctx, 'other', { role: 'admin' }, 'root');
      otherKey = (await h.gateway.resolve(apiKeyManagerToken).create(ctx, 'accounts/other/users/root', {})).key;
      const tokens: string[] = [];
      for (const path of [`${v1}/models?pageSize=1`, `${v1}/datasets?pageSize=1`, `${v1}/models?pageSize=1&filter=${encodeURIComponent('state = READY')}`]) {
        const page = (await ok('GET', path)) as { nextPageToken?: string };
        if (page.nextPageToken) tokens.push(page.nextPageToken);
      }
      fixtures = {
        account,
        ids: {
          model_id: ['m', 'addon'], dataset_id: ['ds', 'ds2'], deployment_shape_id: ['s'], deployment_id: ['d'],
          user_id: ['admin', 'bob'], batch_inference_job_id: ['bj'], key_id: ['missing'],
        },
        names: [model('m'), model('addon'), `accounts/${account}/datasets/ds`, `accounts/${account}/deployments/d`, 'accounts/other/models/m'],
        pageTokens: tokens,
      };
    });
    afterAll(async () => {
      await h?.close();
      await cleanup?.();
    });

    // First, while the fixtures are intact (the fuzzing below deletes some of them).
    it('answers the fixed reproducers of issue 9 as recorded', { timeout: 60_000 }, async () => {
      const failures: string[] = [];
      for (const reproducer of reproducers(fixtures)) {
        const { answer, failure } = await probe(reproducer.request);
        if (failure !== undefined || answer === undefined) {
          failures.push(`${reproducer.defect}: ${failure}`);
          continue;
        }
        if (answer.status !== reproducer.status) failures.push(`${reproducer.defect}: ${describeRequest(reproducer.request)} → ${answer.status}, expected ${reproducer.status}: ${answer.text.slice(0, 200)}`);
      }
      expect(failures).toEqual([]);
    });
    it('keeps every documented route free of 5xx, hangs and foreign error formats', { timeout: 120_000 }, async () => {
      const doc = (await (await fetch(`${h.url}/openapi.json`)).json()) as OpenApiDocument;
      const operations = operationsOf(doc);
      expect(operations.length).toBeGreaterThan(30);
      const failures: string[] = [];
      let sent = 0;
      for (const [index, operation] of operations.entries()) {
        const requests = fc.sample(requestFor(operation, fixtures), { numRuns: runsPerRoute, seed: seed + index });
        for (const request of requests) {
          sent += 1;
          const { failure } = await probe(request);
          if (failure !== undefined) failures.push(failure);
        }
      }
      expect(sent).toBe(operations.length * runsPerRoute);
      expect(failures).toEqual([]);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect((await send({ method: 'GET', url: '/healthz', auth: 'none' })).status).toBe(200);
    });
  });
}

function describeRequest(request: FuzzRequest): string {
  const body = request.body === undefined ? '' : ` ${request.body.length > 160 ? `${request.body.slice(0, 160)}… (${request.body.length} chars)` : request.body}`;
  return `${request.method} ${request.url.length > 200 ? `${request.url.slice(0, 200)}…` : request.url} [${request.auth}]${body}`;
}
