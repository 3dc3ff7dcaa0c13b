import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleContentSecurityPolicy, registerConsoleRoutes } from './console-routes.js';

describe('the console routes', () => {
  let directory: string;
  const apps: FastifyInstance[] = [];
  const serve = async (mountPoint: string, assetsDirectory: string) => {
    const app = Fastify();
    await app.register(async (scope) => registerConsoleRoutes(scope, mountPoint, { assetsDirectory }), { prefix: mountPoint });
    apps.push(app);
    return app;
  };

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'berth-console-assets-'));
    await mkdir(join(directory, 'assets'));
    await writeFile(join(directory, 'index.html'), '<!doctype html><base href="/console/" /><script type="module" src="./assets/app-1a2b.js"></script>');
    await writeFile(join(directory, 'assets', 'app-1a2b.js'), 'console.log(1)');
    await writeFile(join(directory, 'assets', 'app-1a2b.css'), 'body{}');
  });
  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
    await rm(directory, { recursive: true, force: true });
  });

  it('serves the page at /console and at any app route below it (no-cache), with its security headers', async () => {
    const app = await serve('', directory);
    for (const url of ['/console', '/console/', '/console/models/llama', '/console/batch']) {
      const answer = await app.inject({ url });
      expect(answer.statusCode, url).toBe(200);
      expect(answer.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(answer.headers['cache-control']).toBe('no-cache');
      expect(answer.headers['content-security-policy']).toBe(consoleContentSecurityPolicy);
      expect(answer.headers['x-content-type-options']).toBe('nosniff');
      expect(answer.body).toContain('<base href="/console/"');
    }
  });

  it('serves hashed assets as immutable, with their types', async () => {
    const app = await serve('', directory);
    const script = await app.inject({ url: '/console/assets/app-1a2b.js' });
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(script.body).toBe('console.log(1)');
    expect((await app.inject({ url: '/console/assets/app-1a2b.css' })).headers['content-type']).toBe('text/css; charset=utf-8');
  });

  it('answers 404 in the control-plane format for a file that is not there, never the page', async () => {
    const app = await serve('', directory);
    for (const url of ['/console/assets/missing.js', '/console/favicon.ico', '/console/assets/../index.html.bak']) {
      const answer = await app.inject({ url });
      expect(answer.statusCode, url).toBe(404);
      expect(answer.json()).toMatchObject({ code: 5 });
      expect(answer.headers['x-request-id'], url).toMatch(/\S/);
    }
  });

  it('points the page at its mount point when Berth is mounted under a prefix', async () => {
    const app = await serve('/berth', directory);
    const answer = await app.inject({ url: '/berth/console/deployments' });
    expect(answer.statusCode).toBe(200);
    expect(answer.body).toContain('<base href="/berth/console/"');
  });

  it('answers 503 saying how to build it when the console is not built, and serves it once it is', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'berth-console-unbuilt-'));
    try {
      const app = await serve('', empty);
      const answer = await app.inject({ url: '/console/' });
      expect(answer.statusCode).toBe(503);
      expect(answer.body).toContain('npm run build');
      await writeFile(join(empty, 'index.html'), '<base href="/console/">built');
      expect((await app.inject({ url: '/console/' })).body).toContain('built');
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});
