import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { account, startHarness, type Harness } from './harness.js';

/**
 * Issue 9 item 5: requests that reach the server while it closes (here pipelined behind one still in
 * progress) answer UNAVAILABLE in their surface's error format, not Fastify's own 503 body.
 */
let h: Harness | undefined;
afterEach(async () => {
  await h?.gateway.stop();
  h = undefined;
});

const hostPort = (url: string) => {
  const { port, hostname } = new URL(url);
  return { port: Number(port), host: hostname === 'localhost' ? '127.0.0.1' : hostname };
};

/** Resolves once `text` has arrived on the socket; `received()` returns all of it so far. */
function reader(socket: Socket) {
  let data = '';
  const waiters: { text: string; resolve: () => void }[] = [];
  socket.on('data', (chunk) => {
    data += chunk.toString('latin1');
    for (const w of waiters.filter((w) => data.includes(w.text))) w.resolve();
  });
  const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  return {
    until: (text: string) => (data.includes(text) ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ text, resolve }))),
    ended,
    received: () => data,
  };
}

/** Resolves once the listener refuses connections: `close()` has begun and its preClose hooks ran. */
async function untilRefused(url: string): Promise<void> {
  for (;;) {
    const refused = await new Promise<boolean>((resolve) => {
      const probe = connect(hostPort(url));
      probe.on('connect', () => {
        probe.destroy();
        resolve(false);
      });
      probe.on('error', () => resolve(true));
    });
    if (refused) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** The answers in `raw` (HTTP/1.1 responses with content-length bodies), interim 100 Continue left out. */
function answers(raw: string): { status: number; headers: string; body: unknown }[] {
  const out: { status: number; headers: string; body: unknown }[] = [];
  let rest = raw.replaceAll('HTTP/1.1 100 Continue\r\n\r\n', '');
  for (;;) {
    const head = /^HTTP\/1\.1 (\d{3})[^\r]*\r\n([\s\S]*?)\r\n\r\n/.exec(rest);
    if (!head) return out;
    rest = rest.slice(head[0].length);
    const length = Number(/content-length: (\d+)/i.exec(head[2]!)?.[1] ?? 0);
    const text = Buffer.from(rest, 'latin1').subarray(0, length).toString('utf8');
    rest = Buffer.from(rest, 'latin1').subarray(length).toString('latin1');
    out.push({ status: Number(head[1]), headers: head[2]!, body: JSON.parse(text) as unknown });
  }
}

describe('a request arriving while the server closes', () => {
  it.each([
    ['control', `/v1/accounts/${account}/models`],
    ['inference', '/inference/v1/chat/completions'],
  ])('answers 503 UNAVAILABLE in the %s format', async (surface, path) => {
    h = await startHarness();
    const socket = connect(hostPort(h.url));
    const read = reader(socket);
    // A request in progress keeps the connection (and the closing server) busy: its body is unfinished.
    socket.write(
      `POST /v1/accounts/${account}/models HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n` +
        'Content-Length: 2\r\nExpect: 100-continue\r\n\r\n{',
    );
    await read.until('100 Continue');
    const closed = h.server.close();
    await untilRefused(h.url);
    socket.write(`}GET ${path} HTTP/1.1\r\nHost: test\r\n\r\n`);
    await read.ended;
    await closed;
    const [first, second] = answers(read.received());
    expect(first?.status).toBe(401);
    expect(second?.status).toBe(503);
    expect(second?.headers).toMatch(/connection: close/i);
    if (surface === 'control') expect(second?.body).toEqual({ code: 14, message: expect.stringMatching(/shutting down/), details: [] });
    else expect(second?.body).toEqual({ error: { type: 'server_error', code: 'unavailable', param: null, message: expect.stringMatching(/shutting down/) } });
  });
});
