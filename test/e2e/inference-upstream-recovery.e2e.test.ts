import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  definePlugin, servingDirectoryToken, startReferenceEngine,
  type ReferenceEngine, type ReplicaLease, type ServingDirectory,
} from '@berth/core';
import { memoryStorage } from '@berth/plugin-storage-memory';
import { apiKeyAuth } from '@berth/plugin-auth-api-keys';
import { account, startHarness, type Harness } from './harness.js';

/**
 * Issue 9, defect #5: whatever a replica answers (413 before reading the body, a reset, a half-sent
 * answer), the pooled connection to it never breaks the next request. One connection per replica, so
 * the next request must go over whatever the previous one left behind.
 */
const model = `accounts/${account}/models/m`;
const servedModelId = 'reference-model';

let endpoint = '';
function directory(): ServingDirectory {
  return {
    async resolve() {
      return { accountId: account, model, deployment: `accounts/${account}/deployments/d` };
    },
    async acquire(_ctx, target): Promise<ReplicaLease> {
      return { replicaId: 'r', deployment: target.deployment, endpoint, servedModelId, release() {} };
    },
  };
}

let h: Harness;
let engine: ReferenceEngine;
let misbehaving: Server;
let misbehavingUrl = '';
/** What the misbehaving replica does with the next request. */
let mode: 'reset-before-answer' | 'half-answer' | 'refuse-unread' | 'ok' = 'ok';

function misbehave(req: IncomingMessage, res: ServerResponse): void {
  const current = mode;
  if (current === 'reset-before-answer') {
    req.socket.destroy();
    return;
  }
  if (current === 'refuse-unread') {
    // Answers 413 at once, never reading the body, and keeps the connection open.
    const text = JSON.stringify({ error: { message: 'too large', type: 'invalid_request_error', param: null, code: 'request_too_large' } });
    res.writeHead(413, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
    return;
  }
  req.resume();
  req.on('end', () => {
    const text = JSON.stringify({ id: 'x', object: 'chat.completion', created: 1, model: servedModelId, choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }] });
    if (current === 'half-answer') {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.write(text.slice(0, 10));
      setTimeout(() => res.socket?.destroy(), 20);
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  });
}

beforeAll(async () => {
  engine = await startReferenceEngine({ host: '127.0.0.1', port: 0, modelIds: [servedModelId] });
  misbehaving = createServer(misbehave);
  await new Promise<void>((resolve) => misbehaving.listen(0, '127.0.0.1', resolve));
  misbehavingUrl = `http://127.0.0.1:${(misbehaving.address() as AddressInfo).port}`;
  const serving = definePlugin({ id: 'one-replica', register: (binder) => binder.bindValue(servingDirectoryToken, directory(), { override: true }) });
  h = await startHarness({
    plugins: [memoryStorage(), apiKeyAuth({ cacheTtlMs: 0 }), serving],
    serve: { inference: { connectionsPerReplica: 1, headersTimeoutMs: 15_000 } },
  });
});
afterAll(async () => {
  await h?.close();
  await engine?.close();
  await new Promise((resolve) => misbehaving?.close(resolve));
});

const chat = (content: string) => ({ model, messages: [{ role: 'user', content }] });

describe('replica connections recover from any upstream answer', () => {
  it('a ~9 MiB body the engine refuses with 413 does not break the next request', async () => {
    endpoint = engine.url;
    const refused = await h.call('POST', '/inference/v1/chat/completions', { body: chat('x'.repeat(9 * 1024 * 1024)) });
    expect(refused.status).toBe(413);
    expect(refused.body).toMatchObject({ error: { type: 'invalid_request_error' } });
    for (let i = 0; i < 3; i += 1) {
      const next = await h.call('POST', '/inference/v1/chat/completions', { body: chat('hello') });
      expect(next.status).toBe(200);
      expect(next.body).toMatchObject({ object: 'chat.completion', model });
    }
  });

  it('a 413 sent before the body is read, on a connection kept open, does not break the next request', async () => {
    endpoint = misbehavingUrl;
    mode = 'refuse-unread';
    const refused = await h.call('POST', '/inference/v1/chat/completions', { body: chat('y'.repeat(2 * 1024 * 1024)) });
    expect(refused.status).toBe(413);
    mode = 'ok';
    const next = await h.call('POST', '/inference/v1/chat/completions', { body: chat('hello') });
    expect(next.status).toBe(200);
  });

  it('a reset before the answer, then a half-sent answer: each fails cleanly and the next request succeeds', async () => {
    endpoint = misbehavingUrl;
    for (const failing of ['reset-before-answer', 'half-answer'] as const) {
      mode = failing;
      const failed = await h.call('POST', '/inference/v1/chat/completions', { body: chat('z'.repeat(64 * 1024)) });
      expect(failed.status).toBeGreaterThanOrEqual(500);
      expect(failed.body).toMatchObject({ error: { type: 'server_error' } });
      mode = 'ok';
      const next = await h.call('POST', '/inference/v1/chat/completions', { body: chat('hello') });
      expect(next.status).toBe(200);
    }
  });
});
