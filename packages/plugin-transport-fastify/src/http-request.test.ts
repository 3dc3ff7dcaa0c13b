import { afterEach, describe, expect, it } from 'vitest';
import Fastify, { type FastifyInstance } from 'fastify';
import { request as httpRequest } from 'node:http';
import type { Principal } from '@berth/core';
import { HttpRequestContext, HttpRouteRequest, ifMatchOf } from './http-request.js';

const principal: Principal = { userName: 'accounts/a/users/u', accountId: 'a', role: 'admin' };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('HttpRequestContext', () => {
  let app: FastifyInstance | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it('keeps its signal unaborted while the answer is being prepared, then the client gets it', async () => {
    app = Fastify();
    app.get('/slow', async (request, reply) => {
      const ctx = new HttpRequestContext(request.id, principal, reply);
      const signal = ctx.signal;
      await sleep(30);
      return { aborted: signal.aborted, same: signal === ctx.signal };
    });
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    const answer = await fetch(`${url}/slow`);
    expect(await answer.json()).toEqual({ aborted: false, same: true });
  });

  it('aborts its signal when the client goes away before the answer', async () => {
    let resolveSeen: (aborted: boolean) => void = () => {};
    const seen = new Promise<boolean>((resolve) => (resolveSeen = resolve));
    app = Fastify();
    app.get('/hang', async (request, reply) => {
      const ctx = new HttpRequestContext(request.id, principal, reply);
      const signal = ctx.signal;
      await new Promise<void>((resolve) => {
        signal.addEventListener('abort', () => resolve());
        setTimeout(resolve, 2000);
      });
      resolveSeen(signal.aborted);
      return {};
    });
    const url = new URL(await app.listen({ host: '127.0.0.1', port: 0 }));
    const client = httpRequest({ host: url.hostname, port: url.port, path: '/hang' });
    client.on('error', () => {});
    client.end();
    await sleep(50);
    client.destroy();
    expect(await seen).toBe(true);
  });
});

describe('HttpRouteRequest', () => {
  it('answers the params and query it was given, and the request body and origin', async () => {
    const app = Fastify();
    app.post('/echo', async (request, reply) => {
      const ctx = new HttpRequestContext(request.id, principal, reply);
      const routeRequest = new HttpRouteRequest(ctx, { id: 'x' }, { readMask: 'name' }, request);
      return { body: routeRequest.body, baseUrl: routeRequest.baseUrl, params: routeRequest.params, query: routeRequest.query };
    });
    const answer = await app.inject({ method: 'POST', url: '/echo', headers: { host: 'gw.example:8080' }, payload: { a: 1 } });
    expect(answer.json()).toEqual({ body: { a: 1 }, baseUrl: 'http://gw.example:8080', params: { id: 'x' }, query: { readMask: 'name' } });
    await app.close();
  });
});

describe('ifMatchOf', () => {
  it('strips the quotes (and a weak marker) of an entity tag, keeps `*`, and ignores an empty header', () => {
    expect(ifMatchOf('"abc123"')).toBe('abc123');
    expect(ifMatchOf('W/"abc123"')).toBe('abc123');
    expect(ifMatchOf('abc123')).toBe('abc123');
    expect(ifMatchOf('*')).toBe('*');
    expect(ifMatchOf('  ')).toBeUndefined();
    expect(ifMatchOf(undefined)).toBeUndefined();
  });

  it('is exposed on the route request as `ifMatch`', async () => {
    const app = Fastify();
    app.get('/etag', async (request, reply) => {
      const ctx = new HttpRequestContext(request.id, principal, reply);
      return { ifMatch: new HttpRouteRequest(ctx, {}, {}, request).ifMatch ?? null };
    });
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    try {
      expect(await (await fetch(`${url}/etag`, { headers: { 'if-match': '"v1"' } })).json()).toEqual({ ifMatch: 'v1' });
      expect(await (await fetch(`${url}/etag`)).json()).toEqual({ ifMatch: null });
    } finally {
      await app.close();
    }
  });
});
