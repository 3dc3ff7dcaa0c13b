import { describe, expect, it } from 'vitest';
import type { RequestContext } from '../contracts/request-context.js';
import { Code } from '../errors/code.js';
import { createEgressHttp, type EgressHttpOptions, type GuardedEgressHttp } from './egress-client.js';
import { closedPort, gatewayFailure as failure, loopbackV4, tableResolver, useLoopbackServers, type LoopbackServer } from './loopback-server-fixture.js';

const ctx: RequestContext = { requestId: 'egress-test' };
const { serve, keep } = useLoopbackServers();

function client(options: EgressHttpOptions = {}): GuardedEgressHttp {
  return keep(createEgressHttp({ allowLoopback: true, resolver: tableResolver({ 'api.test': loopbackV4, 'other.test': loopbackV4 }), ...options }));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('request: an exchange with a real server on 127.0.0.1', () => {
  it('sends method, headers and body, and reads status, headers and body', async () => {
    const server = await serve((request, response, body) => {
      response.setHeader('content-type', 'application/json');
      response.setHeader('x-multi', ['a', 'b']);
      response.end(JSON.stringify({ method: request.method, body }));
    });
    const answer = await client().request(ctx, `http://api.test:${server.port}/hook?x=1`, {
      method: 'post',
      headers: { 'Content-Type': 'text/plain', 'X-Signature': 'sig', Host: 'evil.test', 'Accept-Encoding': 'gzip', Connection: 'upgrade' },
      body: 'payload',
    });
    expect(answer.status).toBe(200);
    expect(answer.url).toBe(`http://api.test:${server.port}/hook?x=1`);
    expect(answer.headers['content-type']).toBe('application/json');
    expect(answer.headers['x-multi']).toBe('a, b');
    expect(answer.json()).toEqual({ method: 'POST', body: 'payload' });
    const seen = server.requests[0]!;
    expect(seen.url).toBe('/hook?x=1');
    expect(seen.headers['x-signature']).toBe('sig');
    expect(seen.headers['content-type']).toBe('text/plain');
    // The client owns Host (from the URL) and asks for an uncompressed body.
    expect(seen.headers.host).toBe(`api.test:${server.port}`);
    expect(seen.headers['accept-encoding']).toBe('identity');
    expect(seen.headers.connection).not.toBe('upgrade');
  });

  it('answers any status as an answer, not an error', async () => {
    const server = await serve((_request, response) => {
      response.statusCode = 503;
      response.end('busy');
    });
    const answer = await client().request(ctx, server.origin);
    expect([answer.status, answer.text()]).toEqual([503, 'busy']);
  });

  it('refuses loopback without allowLoopback, by literal and by resolved name, without connecting', async () => {
    const server = await serve((_request, response) => response.end('should not be reached'));
    const strict = client({ allowLoopback: false });
    for (const url of [server.origin, `http://2130706433:${server.port}/`, `http://[::ffff:127.0.0.1]:${server.port}/`, `http://api.test:${server.port}/`]) {
      const error = await failure(strict.request(ctx, url));
      expect(error.code, url).toBe(Code.INVALID_ARGUMENT);
      expect(error.reason, url).toBe('EGRESS_ADDRESS_REFUSED');
    }
    expect(server.connections()).toBe(0);
  });

  it('connects to the address it checked, resolving again (and checking again) for each new connection', async () => {
    const server = await serve((_request, response) => {
      response.setHeader('connection', 'close');
      response.end('ok');
    });
    // The first answer is loopback (allowed here), the next one a private address (refused): a rebinding.
    let answers = 0;
    const resolver = tableResolver({
      'rebind.test': () => (answers++ === 0 ? loopbackV4 : [{ address: '10.0.0.1', family: 4 }]),
    });
    const egress = client({ resolver });
    expect((await egress.request(ctx, `http://rebind.test:${server.port}/`)).text()).toBe('ok');
    const error = await failure(egress.request(ctx, `http://rebind.test:${server.port}/`));
    expect(error.reason).toBe('EGRESS_ADDRESS_REFUSED');
    expect(error.message).toContain('rebind.test resolves to a private-network address');
    // One resolution per connection: the check is the resolution the socket uses, never a separate one.
    expect(resolver.asked).toEqual(['rebind.test', 'rebind.test']);
    expect(server.connections()).toBe(1);
  });

  it('resolves once per connection, not once per request', async () => {
    const server = await serve((_request, response) => response.end('ok'));
    const resolver = tableResolver({ 'api.test': loopbackV4 });
    const egress = client({ resolver });
    for (let i = 0; i < 5; i++) await egress.request(ctx, `http://api.test:${server.port}/`);
    expect(resolver.asked.length).toBe(server.connections());
    expect(server.connections()).toBeLessThan(5);
  });

  it('is INVALID_ARGUMENT for a name that does not exist, UNAVAILABLE when the port is closed or the connection drops', async () => {
    const egress = client();
    const nowhere = await failure(egress.request(ctx, 'http://nowhere.test/'));
    expect([nowhere.code, nowhere.reason]).toEqual([Code.INVALID_ARGUMENT, 'EGRESS_DNS_FAILED']);
    const refused = await failure(egress.request(ctx, `http://127.0.0.1:${await closedPort()}/`));
    expect([refused.code, refused.message]).toEqual([Code.UNAVAILABLE, expect.stringContaining('ECONNREFUSED')]);
    const server = await serve((request, response) => {
      response.writeHead(200, { 'content-length': '100' });
      response.write('partial');
      setTimeout(() => request.socket.destroy(), 10);
    });
    const dropped = await failure(egress.request(ctx, `${server.origin}/private-path?token=s3cret`));
    expect(dropped.code).toBe(Code.UNAVAILABLE);
    // Messages name the origin, never the path or query (they may hold secrets).
    expect(dropped.message).toContain(server.origin);
    expect(dropped.message).not.toMatch(/private-path|s3cret/);
  });

  it('is UNAVAILABLE when json() meets a body that is not JSON', async () => {
    const server = await serve((_request, response) => response.end('<html>'));
    const answer = await client().request(ctx, server.origin);
    const error = await failure(Promise.resolve().then(() => answer.json()));
    expect([error.code, error.reason]).toEqual([Code.UNAVAILABLE, 'EGRESS_BAD_RESPONSE']);
  });

  it('refuses what cannot be sent: a tunnel method, a header with a line break, bad limits', async () => {
    const server = await serve((_request, response) => response.end('ok'));
    const egress = client();
    for (const method of ['CONNECT', 'trace', 'GET /x HTTP/1.1']) {
      expect((await failure(egress.request(ctx, server.origin, { method }))).code, method).toBe(Code.INVALID_ARGUMENT);
    }
    const header = await failure(egress.request(ctx, server.origin, { headers: { 'x-a': 'one\r\nx-b: two' } }));
    expect(header.code).toBe(Code.INVALID_ARGUMENT);
    for (const limits of [{ maxRedirects: 6 }, { maxRedirects: 1.5 }, { totalTimeoutMs: 0 }, { maxResponseBytes: -1 }, { headersTimeoutMs: Number.NaN }]) {
      expect((await failure(egress.request(ctx, server.origin, limits))).reason, JSON.stringify(limits)).toBe('EGRESS_LIMIT_INVALID');
    }
    expect(server.requests).toHaveLength(0);
  });

  it('is UNAVAILABLE once closed', async () => {
    const egress = client();
    await egress.close();
    expect((await failure(egress.request(ctx, 'http://127.0.0.1:9/'))).reason).toBe('EGRESS_CLOSED');
  });

  it('ends exchanges still running when the grace of close runs out, as UNAVAILABLE (EGRESS_CLOSED)', async () => {
    const server = await serve(() => undefined); // never answers
    const egress = client();
    const running = failure(egress.request(ctx, server.origin, { totalTimeoutMs: 600_000, headersTimeoutMs: 600_000 }));
    const streaming = egress.createFetch(ctx, { totalTimeoutMs: 600_000, headersTimeoutMs: 600_000 })(server.origin).then(() => undefined, (e: unknown) => e);
    await sleep(50);
    await egress.close(20);
    const error = await running;
    expect([error.code, error.reason]).toEqual([Code.UNAVAILABLE, 'EGRESS_CLOSED']);
    const fetched = await streaming;
    expect(fetched).toMatchObject({ code: Code.UNAVAILABLE, reason: 'EGRESS_CLOSED' });
  });
});

describe('request: redirects', () => {
  function redirecting(): Promise<LoopbackServer> {
    return serve((request, response, body) => {
      const url = new URL(request.url ?? '/', 'http://x');
      const hops = /^\/hops\/(\d+)$/.exec(url.pathname);
      if (hops !== null) {
        const left = Number(hops[1]);
        if (left === 0) return void response.end('arrived');
        response.writeHead(302, { location: `/hops/${left - 1}` });
        return void response.end('moving');
      }
      const to = url.searchParams.get('to');
      if (to !== null) {
        response.writeHead(Number(url.searchParams.get('status') ?? 302), { location: to });
        return void response.end();
      }
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ method: request.method, body, headers: request.headers }));
    });
  }

  it('follows up to 5 redirects and no more', async () => {
    const server = await redirecting();
    const egress = client();
    const answer = await egress.request(ctx, `${server.origin}/hops/5`);
    expect([answer.text(), answer.url]).toEqual(['arrived', `${server.origin}/hops/0`]);
    const error = await failure(egress.request(ctx, `${server.origin}/hops/6`));
    expect([error.code, error.reason]).toEqual([Code.INVALID_ARGUMENT, 'EGRESS_TOO_MANY_REDIRECTS']);
    expect((await failure(egress.request(ctx, `${server.origin}/hops/2`, { maxRedirects: 1 }))).reason).toBe('EGRESS_TOO_MANY_REDIRECTS');
  });

  it('returns the 3xx with redirect "manual", refuses it with "error"', async () => {
    const server = await redirecting();
    const egress = client();
    const manual = await egress.request(ctx, `${server.origin}/hops/1`, { redirect: 'manual' });
    expect([manual.status, manual.headers.location, manual.text()]).toEqual([302, '/hops/0', 'moving']);
    const refused = await failure(egress.request(ctx, `${server.origin}/hops/1`, { redirect: 'error' }));
    expect([refused.code, refused.reason]).toEqual([Code.INVALID_ARGUMENT, 'EGRESS_REDIRECT_REFUSED']);
  });

  it('checks every hop: no redirect reaches metadata, private, unspecified or non-http targets', async () => {
    const server = await redirecting();
    const egress = client({ resolver: tableResolver({ 'internal.test': [{ address: '10.0.0.8', family: 4 }] }) });
    for (const target of [
      'http://169.254.169.254/latest/meta-data/',
      'http://0xa9fea9fe/',
      'http://[::ffff:a9fe:a9fe]/',
      'http://0.0.0.0/',
      'http://[fd00::1]/',
      'http://internal.test/',
      'file:///etc/passwd',
      'gopher://127.0.0.1:25/',
    ]) {
      const error = await failure(egress.request(ctx, `${server.origin}/?to=${encodeURIComponent(target)}`));
      expect(error.code, target).toBe(Code.INVALID_ARGUMENT);
      expect(['EGRESS_ADDRESS_REFUSED', 'EGRESS_URL_INVALID'], target).toContain(error.reason);
    }
  });

  it('turns a POST into a GET without body on 303, keeps method and body on 307', async () => {
    const server = await redirecting();
    const egress = client();
    const post = { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' };
    const seeOther = (await egress.request(ctx, `${server.origin}/?status=303&to=/echo`, post)).json() as { method: string; body: string; headers: Record<string, string> };
    expect([seeOther.method, seeOther.body, seeOther.headers['content-type']]).toEqual(['GET', '', undefined]);
    const temporary = (await egress.request(ctx, `${server.origin}/?status=307&to=/echo`, post)).json() as { method: string; body: string; headers: Record<string, string> };
    expect([temporary.method, temporary.body, temporary.headers['content-type']]).toEqual(['POST', '{"a":1}', 'application/json']);
  });

  it('keeps credentials on the same origin and drops them on another', async () => {
    const server = await redirecting();
    const other = await redirecting();
    const egress = client();
    const headers = { authorization: 'Bearer secret', 'x-api-key': 'k', accept: 'application/json', cookie: 'c=1' };
    type Echo = { headers: Record<string, string> };
    const same = (await egress.request(ctx, `http://api.test:${server.port}/?to=/echo`, { headers })).json() as Echo;
    expect([same.headers.authorization, same.headers['x-api-key']]).toEqual(['Bearer secret', 'k']);
    const to = `http://other.test:${other.port}/echo`;
    const across = (await egress.request(ctx, `http://api.test:${server.port}/?to=${encodeURIComponent(to)}`, { headers })).json() as Echo;
    expect(across.headers.host).toBe(`other.test:${other.port}`);
    expect([across.headers.authorization, across.headers['x-api-key'], across.headers.cookie, across.headers.accept]).toEqual([
      undefined, undefined, undefined, 'application/json',
    ]);
  });
});

describe('request: time limits', () => {
  it('is DEADLINE_EXCEEDED when the headers do not come in time', async () => {
    const server = await serve(() => undefined);
    const error = await failure(client().request(ctx, server.origin, { headersTimeoutMs: 100 }));
    expect([error.code, error.reason]).toEqual([Code.DEADLINE_EXCEEDED, 'EGRESS_TIMEOUT']);
  });

  it('is DEADLINE_EXCEEDED when the body pauses too long', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200);
      response.write('first');
    });
    const error = await failure(client().request(ctx, server.origin, { bodyIdleTimeoutMs: 100 }));
    expect(error.code).toBe(Code.DEADLINE_EXCEEDED);
  });

  it('is DEADLINE_EXCEEDED when the whole exchange takes too long, even while bytes keep coming', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200);
      const timer = setInterval(() => response.write('.'), 20);
      response.on('close', () => clearInterval(timer));
    });
    const error = await failure(client().request(ctx, server.origin, { totalTimeoutMs: 200 }));
    expect([error.code, error.message]).toEqual([Code.DEADLINE_EXCEEDED, `outbound request to ${server.origin} did not finish within 200 ms`]);
  });

  it("ends at the context's deadline", async () => {
    const server = await serve(() => undefined);
    const error = await failure(client().request({ ...ctx, deadline: Date.now() + 150 }, server.origin));
    expect(error.code).toBe(Code.DEADLINE_EXCEEDED);
    const late = await failure(client().request({ ...ctx, deadline: Date.now() - 1 }, server.origin));
    expect(late.code).toBe(Code.DEADLINE_EXCEEDED);
  });

  it('is DEADLINE_EXCEEDED when resolving and connecting take longer than the connect timeout', async () => {
    const hanging = Object.assign(() => new Promise<never>(() => undefined), {});
    const error = await failure(client({ resolver: hanging, connectTimeoutMs: 100 }).request(ctx, 'http://slow-dns.test/'));
    expect([error.code, error.message]).toEqual([Code.DEADLINE_EXCEEDED, expect.stringContaining('connecting took too long')]);
  });
});

describe('request: cancellation and size', () => {
  it("is CANCELLED when the context's signal aborts, before or during the exchange", async () => {
    const server = await serve(() => undefined);
    const controller = new AbortController();
    const pending = failure(client().request({ ...ctx, signal: controller.signal }, server.origin));
    await sleep(50);
    controller.abort();
    expect([(await pending).code, (await pending).reason]).toEqual([Code.CANCELLED, 'EGRESS_CANCELLED']);
    const before = await failure(client().request({ ...ctx, signal: AbortSignal.abort() }, `${server.origin}/never`));
    expect(before.code).toBe(Code.CANCELLED);
    expect(server.requests.map((r) => r.url)).toEqual(['/']);
  });

  it('reads a body up to the cap, and refuses one declared or streamed past it, closing the connection', async () => {
    let closedEarly = 0;
    const server = await serve((request, response) => {
      const size = Number(new URL(request.url ?? '/', 'http://x').searchParams.get('size'));
      if (request.url?.startsWith('/declared')) {
        response.writeHead(200, { 'content-length': String(size) });
        return void response.end('x'.repeat(size));
      }
      response.writeHead(200);
      let sent = 0;
      const timer = setInterval(() => {
        if (sent >= size) {
          clearInterval(timer);
          return void response.end();
        }
        response.write('x'.repeat(256));
        sent += 256;
      }, 1);
      response.on('close', () => {
        clearInterval(timer);
        if (!response.writableFinished) closedEarly += 1;
      });
    });
    const egress = client();
    expect((await egress.request(ctx, `${server.origin}/declared?size=1024`, { maxResponseBytes: 1024 })).body.byteLength).toBe(1024);
    expect((await egress.request(ctx, `${server.origin}/streamed?size=1024`, { maxResponseBytes: 1024 })).body.byteLength).toBe(1024);
    const declared = await failure(egress.request(ctx, `${server.origin}/declared?size=1025`, { maxResponseBytes: 1024 }));
    expect([declared.code, declared.reason]).toEqual([Code.INVALID_ARGUMENT, 'EGRESS_RESPONSE_TOO_LARGE']);
    const streamed = await failure(egress.request(ctx, `${server.origin}/streamed?size=100000000`, { maxResponseBytes: 4096 }));
    expect(streamed.reason).toBe('EGRESS_RESPONSE_TOO_LARGE');
    await sleep(50);
    expect(closedEarly).toBe(1);
  });
});
