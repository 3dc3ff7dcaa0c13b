import { describe, expect, it } from 'vitest';
import type { RequestContext } from '../contracts/request-context.js';
import { Code } from '../errors/code.js';
import type { EgressFetch, EgressLimits } from '../ports/egress-http.js';
import { createEgressHttp } from './egress-client.js';
import { gatewayFailure as gatewayRejection, loopbackV4, tableResolver, useLoopbackServers, type LoopbackHandler } from './loopback-server-fixture.js';

const ctx: RequestContext = { requestId: 'egress-fetch-test' };
const { serve, keep } = useLoopbackServers();

function guardedFetch(limits?: EgressLimits, context: RequestContext = ctx, allowLoopback = true): EgressFetch {
  return keep(createEgressHttp({ allowLoopback, resolver: tableResolver({ 'mcp.test': loopbackV4 }) })).createFetch(context, limits);
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

/** Sends `parts` with `gapMs` between them, then ends. */
function dribble(parts: readonly string[], gapMs: number): LoopbackHandler {
  return (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    let index = 0;
    const timer = setInterval(() => {
      const part = parts[index++];
      if (part === undefined) {
        clearInterval(timer);
        return void response.end();
      }
      response.write(part);
    }, gapMs);
    response.on('close', () => clearInterval(timer));
  };
}

describe('createFetch: a fetch for SDKs', () => {
  it('answers a web Response with status, headers, the URL that answered and the body', async () => {
    const server = await serve((request, response, body) => {
      response.setHeader('set-cookie', ['a=1', 'b=2']);
      response.setHeader('content-type', 'application/json');
      response.statusCode = 201;
      response.end(JSON.stringify({ method: request.method, body, type: request.headers['content-type'], session: request.headers['mcp-session-id'] }));
    });
    const answer = await guardedFetch()(`http://mcp.test:${server.port}/mcp`, {
      method: 'POST',
      headers: { 'mcp-session-id': 's-1' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(answer).toBeInstanceOf(Response);
    expect([answer.status, answer.ok, answer.url, answer.redirected]).toEqual([201, true, `http://mcp.test:${server.port}/mcp`, false]);
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(answer.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(await answer.json()).toEqual({ method: 'POST', body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}', type: 'text/plain;charset=UTF-8', session: 's-1' });
  });

  it('takes a Request as input, and reports redirects like fetch', async () => {
    const server = await serve((request, response) => {
      if (request.url === '/old') {
        response.writeHead(308, { location: '/new' });
        return void response.end();
      }
      response.end(`${request.method} ${request.url} ${request.headers.accept}`);
    });
    const fetch = guardedFetch();
    const followed = await fetch(new Request(`${server.origin}/old`, { method: 'DELETE', headers: { accept: 'text/plain' } }));
    expect([followed.url, followed.redirected, await followed.text()]).toEqual([`${server.origin}/new`, true, 'DELETE /new text/plain']);
    const manual = await fetch(`${server.origin}/old`, { redirect: 'manual' });
    expect([manual.status, manual.headers.get('location')]).toEqual([308, '/new']);
    expect((await gatewayRejection(fetch(`${server.origin}/old`, { redirect: 'error' }))).reason).toBe('EGRESS_REDIRECT_REFUSED');
  });

  it('streams the body as it comes', async () => {
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    const server = await serve((_request, response) => {
      response.writeHead(200);
      response.write('first');
      void released.then(() => response.end('second'));
    });
    const answer = await guardedFetch()(server.origin);
    const reader = answer.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('first');
    release();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('second');
    expect((await reader.read()).done).toBe(true);
  });

  it('has no body for 204, 304 and HEAD', async () => {
    const server = await serve((request, response) => {
      response.statusCode = request.url === '/none' ? 204 : request.url === '/same' ? 304 : 200;
      response.end(request.method === 'HEAD' || response.statusCode !== 200 ? undefined : 'body');
    });
    const fetch = guardedFetch();
    for (const [path, method, status] of [['/none', 'GET', 204], ['/same', 'GET', 304], ['/', 'HEAD', 200]] as const) {
      const answer = await fetch(`${server.origin}${path}`, { method });
      expect([answer.status, answer.body], path).toEqual([status, null]);
    }
  });

  it('refuses URLs and addresses with GatewayErrors, not TypeErrors', async () => {
    const server = await serve((_request, response) => response.end('ok'));
    const strict = guardedFetch(undefined, ctx, false);
    for (const url of [server.origin, `http://mcp.test:${server.port}/`, 'http://169.254.169.254/', 'file:///etc/passwd', 'not a url']) {
      const error = await gatewayRejection(strict(url));
      expect(error.code, url).toBe(Code.INVALID_ARGUMENT);
    }
    const bad = await gatewayRejection(guardedFetch()(server.origin, { method: 'GET', body: 'a body on a GET' }));
    expect([bad.code, bad.reason]).toEqual([Code.INVALID_ARGUMENT, 'EGRESS_REQUEST_INVALID']);
    expect(server.requests).toHaveLength(0);
  });

  it('errors the body stream with INVALID_ARGUMENT past the byte cap', async () => {
    const server = await serve(dribble(['x'.repeat(600), 'x'.repeat(600), 'x'.repeat(600)], 5));
    const answer = await guardedFetch({ maxResponseBytes: 1000 })(server.origin);
    const error = await gatewayRejection(answer.text());
    expect([error.code, error.reason]).toEqual([Code.INVALID_ARGUMENT, 'EGRESS_RESPONSE_TOO_LARGE']);
  });

  it('errors the body stream with DEADLINE_EXCEEDED when the total time runs out while streaming', async () => {
    const server = await serve(dribble(Array.from({ length: 100 }, () => 'data: tick\n\n'), 20));
    const answer = await guardedFetch({ totalTimeoutMs: 150 })(server.origin);
    expect(answer.status).toBe(200);
    const error = await gatewayRejection(answer.text());
    expect(error.code).toBe(Code.DEADLINE_EXCEEDED);
  });

  it('keeps a stream open past the default total time when the limit is Infinity', async () => {
    const server = await serve(dribble(['a', 'b', 'c'], 60));
    const answer = await guardedFetch({ totalTimeoutMs: Number.POSITIVE_INFINITY, bodyIdleTimeoutMs: Number.POSITIVE_INFINITY })(server.origin);
    expect(await answer.text()).toBe('abc');
  });

  it("rejects with the call's own signal's reason, as fetch does, before and during the body", async () => {
    const server = await serve(dribble(Array.from({ length: 100 }, () => 'x'), 20));
    const fetch = guardedFetch();
    const early = await rejection(fetch(server.origin, { signal: AbortSignal.abort() }));
    expect(early).toBeInstanceOf(DOMException);
    expect((early as DOMException).name).toBe('AbortError');
    const controller = new AbortController();
    const answer = await fetch(server.origin, { signal: controller.signal });
    const reader = answer.body!.getReader();
    await reader.read();
    const reason = new Error('client went away');
    controller.abort(reason);
    expect(await rejection(reader.read())).toBe(reason);
  });

  it("is CANCELLED when the context's signal aborts", async () => {
    const server = await serve(() => undefined);
    const controller = new AbortController();
    const pending = gatewayRejection(guardedFetch(undefined, { ...ctx, signal: controller.signal })(server.origin));
    setTimeout(() => controller.abort(), 30);
    expect((await pending).code).toBe(Code.CANCELLED);
  });

  it('leaves no trouble behind when an answer is never read', async () => {
    const server = await serve(dribble(Array.from({ length: 100 }, () => 'x'), 5));
    const answer = await guardedFetch({ totalTimeoutMs: 50 })(server.origin);
    expect(answer.status).toBe(200);
    // The total time aborts the exchange with nobody reading: no uncaught error, the connection is closed.
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(await gatewayRejection(answer.text())).toMatchObject({ code: Code.DEADLINE_EXCEEDED });
  });
});
