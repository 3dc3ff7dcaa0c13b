import { readdir, readFile } from 'node:fs/promises';
import { extname, join, relative, sep } from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { consoleAssetsDirectory } from '@berth/console';
import { notFound } from '@berth/core';
import { renderError } from './errors.js';

/** Options of the web console at `<mount>/console` (the `console` option of the {@link berth} plugin). */
export interface ConsoleOptions {
  /** The built console (`index.html`, `assets/`). Default: the one `@berth/console` ships. */
  readonly assetsDirectory?: string;
}

/**
 * The console page's policy: its own scripts, styles and API only (no CDN, no inline script), never framed.
 * `data:` images for the inline favicon; the API and the signed download URLs are on the same origin.
 */
export const consoleContentSecurityPolicy =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; " +
  "object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'";

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

interface Asset {
  readonly body: Buffer;
  readonly type: string;
  /** Hashed file names (under `assets/`) never change content: cached for a year. */
  readonly immutable: boolean;
}

/** Every file of the built console, read once (a few hundred KiB), keyed by path relative to the folder (`assets/x.js`). */
async function loadAssets(directory: string, mountPoint: string): Promise<Map<string, Asset>> {
  const assets = new Map<string, Asset>();
  for (const entry of await readdir(directory, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const key = relative(directory, path).split(sep).join('/');
    let body = await readFile(path);
    // The page's base is where it is mounted: its relative asset URLs and its API calls follow it.
    if (key === 'index.html') body = Buffer.from(body.toString('utf8').replace(/<base href="[^"]*"/, `<base href="${mountPoint}/console/"`));
    assets.set(key, { body, type: contentTypes[extname(key)] ?? 'application/octet-stream', immutable: key.startsWith('assets/') });
  }
  if (!assets.has('index.html')) throw new Error(`no index.html in ${directory}`);
  return assets;
}

function send(reply: FastifyReply, asset: Asset): FastifyReply {
  return reply
    .header('content-type', asset.type)
    .header('cache-control', asset.immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
    .header('content-security-policy', consoleContentSecurityPolicy)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .send(asset.body);
}

/**
 * `GET <mount>/console` and below: the console's files, and its page for any other path below (the app
 * routes in the browser). Files are read on the first request, so a gateway that nobody opens the console
 * of reads nothing. A path that names a file (an extension, or under `assets/`) and is not one answers 404;
 * a checkout whose console is not built answers 503 saying how to build it.
 */
export function registerConsoleRoutes(app: FastifyInstance, mountPoint: string, options: ConsoleOptions = {}): void {
  const directory = options.assetsDirectory ?? consoleAssetsDirectory;
  let loading: Promise<Map<string, Asset>> | undefined;
  const handler = async (request: { id: string; params: unknown; method: string; url: string }, reply: FastifyReply) => {
    loading ??= loadAssets(directory, mountPoint);
    let assets: Map<string, Asset>;
    try {
      assets = await loading;
    } catch {
      loading = undefined;
      return reply.code(503).type('text/plain; charset=utf-8')
        .send('The Berth console is not built here: run `npm run build` (it builds @berth/console).\n');
    }
    const path = (request.params as { '*'?: string })['*'] ?? '';
    const asset = assets.get(path);
    if (asset) return send(reply, asset);
    if (path.startsWith('assets/') || extname(path) !== '') {
      const { status, body } = renderError(notFound(`${request.method} ${request.url.split('?')[0]}`), 'control');
      // Like every other error of the API, it carries the request id the logs carry.
      return reply.code(status).header('x-request-id', request.id).send(body);
    }
    return send(reply, assets.get('index.html')!);
  };
  app.get('/console', handler);
  app.get('/console/*', handler);
}
