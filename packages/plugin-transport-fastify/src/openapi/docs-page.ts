import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { notFound } from '@berth/core';

/**
 * `/docs`: the API reference rendered in the browser by Swagger UI (the `swagger-ui-dist` package) from
 * `/openapi.json`. Its script and style are served from the installed package under versioned URLs with
 * long-lived caching, so the page works offline and loads nothing from another origin.
 */

const escapeHtml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * The page's own script: starts Swagger UI on the document named by the page (a data attribute, so the
 * script is the same file for every mount point and no inline script is needed). `validatorUrl: null`
 * keeps Swagger UI from asking an online validator for a badge.
 */
export const docsInitScript = `'use strict';
window.addEventListener('DOMContentLoaded', function () {
  var root = document.getElementById('swagger-ui');
  window.ui = SwaggerUIBundle({
    url: root.getAttribute('data-openapi-url'),
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    docExpansion: 'list',
    defaultModelsExpandDepth: 0,
    defaultModelExpandDepth: 2,
    displayOperationId: true,
    displayRequestDuration: true,
    filter: true,
    showExtensions: false,
    tryItOutEnabled: false,
  });
});
`;

/** The files of `swagger-ui-dist` the page uses, and what they answer as. */
const packageAssets: Readonly<Record<string, string>> = {
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};
const initScriptName = 'berth-docs.js';

/**
 * The page's policy: scripts, styles, images and fetches from this origin only (Swagger UI's icons are
 * `data:` images and its components set inline styles), nothing framed, no form posted elsewhere.
 */
export const docsContentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'self'",
].join('; ');

/** Cached for a year and never revalidated: the URLs change with the package version and the script. */
const immutableCache = 'public, max-age=31536000, immutable';

/** Where the installed `swagger-ui-dist` is, and its version (resolved from this module, so it works installed elsewhere). */
function swaggerUiDist(): { directory: string; version: string } {
  const require = createRequire(import.meta.url);
  const manifest = require.resolve('swagger-ui-dist/package.json');
  const { version } = require(manifest) as { version: string };
  return { directory: dirname(manifest), version };
}

/** The HTML of `/docs`: Swagger UI's style and script, then ours, all under `assetBase`. */
export function renderDocsPage(options: { readonly title: string; readonly openApiUrl: string; readonly assetBase: string }): string {
  const asset = (name: string) => escapeHtml(`${options.assetBase}/${name}`);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(options.title)}</title>
<link rel="stylesheet" href="${asset('swagger-ui.css')}">
<link rel="icon" type="image/png" href="${asset('favicon-32x32.png')}">
</head>
<body>
<noscript>This API reference needs JavaScript. The machine-readable description is at <a href="${escapeHtml(options.openApiUrl)}">${escapeHtml(options.openApiUrl)}</a>.</noscript>
<div id="swagger-ui" data-openapi-url="${escapeHtml(options.openApiUrl)}"></div>
<script src="${asset('swagger-ui-bundle.js')}"></script>
<script src="${asset(initScriptName)}"></script>
</body>
</html>
`;
}

/**
 * Registers `/docs` and its assets (`/docs/assets/<version>/<file>`) on `app`, whose mount point is
 * `prefix`. Only the listed files are served; any other asset path is 404.
 */
export function registerDocsRoutes(app: FastifyInstance, options: { readonly prefix: string; readonly title: string }): void {
  const dist = swaggerUiDist();
  const initHash = createHash('sha256').update(docsInitScript).digest('hex').slice(0, 12);
  const assetVersion = `${dist.version}-${initHash}`;
  const page = renderDocsPage({ title: options.title, openApiUrl: `${options.prefix}/openapi.json`, assetBase: `${options.prefix}/docs/assets/${assetVersion}` });
  app.get('/docs', async (_request, reply) =>
    reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', docsContentSecurityPolicy)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .header('cache-control', 'no-cache')
      .send(page));
  app.get<{ Params: { version: string; file: string } }>('/docs/assets/:version/:file', async (request, reply) => {
    const { version, file } = request.params;
    const mediaType = file === initScriptName ? 'text/javascript; charset=utf-8' : Object.hasOwn(packageAssets, file) ? packageAssets[file] : undefined;
    if (version !== assetVersion || mediaType === undefined) throw notFound(`docs asset ${version}/${file}`);
    reply.type(mediaType).header('cache-control', immutableCache).header('x-content-type-options', 'nosniff');
    if (file === initScriptName) return reply.send(docsInitScript);
    const path = join(dist.directory, file);
    const { size } = await stat(path);
    return reply.header('content-length', size).send(createReadStream(path));
  });
}
