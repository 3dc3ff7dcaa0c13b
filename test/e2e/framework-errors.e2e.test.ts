import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { account, startHarness, type Harness } from './harness.js';

/**
 * Issue 9, defects #9 and #12: failures Fastify and Node answer themselves (bad URL, long path segments,
 * header overflow, malformed HTTP, slow requests) come in the gateway's error format with a status from
 * the code table, and slow request heads and bodies are cut by deliberate timeouts.
 */
let h: Harness;
const v1 = `/v1/accounts/${account}`;

beforeAll(async () => {
  h = await startHarness({ serve: { timeouts: { headersMs: 1_000, requestMs: 1_500, checkIntervalMs: 100 } } });
});
afterAll(async () => h.close());

interface RawAnswer {
  status: number;
  body: unknown;
  closed: boolean;
}

/** Sends raw bytes (optionally more after `thenAfterMs`) and reads until the server closes or answers in full. */
function rawRequest(text: string, waitMs = 8_000): Promise<RawAnswer> {
  const { port, hostname } = new URL(h.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname === 'localhost' ? '127.0.0.1' : hostname);
    let data = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete answer within ${waitMs} ms; got ${JSON.stringify(data.slice(0, 300))}`));
    }, waitMs);
    const finish = (closed: boolean) => {
      const head = /^HTTP\/1\.1 (\d{3})[^\r]*\r\n([\s\S]*?)\r\n\r\n([\s\S]*)$/.exec(data);
      if (!head) return false;
      const length = /content-length: (\d+)/i.exec(head[2]!)?.[1];
      if (length === undefined || Buffer.byteLength(head[3]!) < Number(length)) return false;
      clearTimeout(timer);
      socket.destroy();
      let body: unknown = head[3];
      try {
        body = JSON.parse(head[3]!.slice(0, Number(length)));
      } catch {}
      resolve({ status: Number(head[1]), body, closed });
      return true;
    };
    socket.on('data', (chunk) => {
      data += chunk.toString('latin1');
      finish(false);
    });
    socket.on('close', () => {
      if (!finish(true)) {
        clearTimeout(timer);
        reject(new Error(`connection closed without a complete answer: ${JSON.stringify(data.slice(0, 300))}`));
      }
    });
    socket.on('error', () => {});
    socket.write(text);
  });
}

const controlError = (code: number) => ({ code, message: expect.any(String), details: [] });

describe('framework failures in the gateway format', () => {
  it('a path segment longer than the router allows: 400 INVALID_ARGUMENT, not 414', async () => {
    const response = await h.call('GET', `${v1}/models/${'m'.repeat(600)}`);
    expect(response.status).toBe(400);
    expect(response.body).toEqual(controlError(3));
  });

  it('a badly percent-encoded URL: 400 INVALID_ARGUMENT', async () => {
    const control = await h.call('GET', `${v1}/models/%E0%A4%A`);
    expect(control.status).toBe(400);
    expect(control.body).toEqual(controlError(3));
    const inference = await h.call('POST', '/inference/v1/%E0%A4%A', { body: {} });
    expect(inference.status).toBe(400);
    expect(inference.body).toMatchObject({ error: { type: 'invalid_request_error', code: 'bad_url' } });
  });

  it('headers larger than the server accepts: 400 INVALID_ARGUMENT, not 431', async () => {
    const answer = await rawRequest(`GET ${v1}/models HTTP/1.1\r\nhost: x\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual(controlError(3));
  });

  it('malformed HTTP: 400 INVALID_ARGUMENT in the control-plane format', async () => {
    const answer = await rawRequest('THIS IS NOT HTTP\r\n\r\n');
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual(controlError(3));
  });

  it('an unknown path or method: 404 NOT_FOUND', async () => {
    const unknown = await h.call('GET', '/v2/nothing');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual(controlError(5));
    const method = await h.call('PUT', `${v1}/models`, { body: {} });
    expect(method.status).toBe(404);
    expect(method.body).toEqual(controlError(5));
  });
});

describe('server timeouts', () => {
  it('cuts a request whose body never finishes arriving (504 DEADLINE_EXCEEDED, connection closed)', async () => {
    const head = `POST ${v1}/models HTTP/1.1\r\nhost: x\r\nauthorization: Bearer test-admin-key-0123456789\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"model":`;
    const answer = await rawRequest(head);
    expect(answer.status).toBe(504);
    expect(answer.body).toEqual(controlError(4));
  });

  it('cuts a request whose headers never finish arriving', async () => {
    const answer = await rawRequest(`GET ${v1}/models HTTP/1.1\r\nhost: x\r\n`);
    expect(answer.status).toBe(504);
    expect(answer.body).toEqual(controlError(4));
  });
});
