import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));

/**
 * The console's Vite build: `app/` into `dist/app/`, with relative asset URLs (the page's `<base href>`
 * names where it is mounted, `/console/` or `<prefix>/console/`), hashed file names (served as immutable)
 * and no inline scripts (the page's Content-Security-Policy allows only its own files).
 * `npm run dev -w @berth/console` serves it with the API proxied to a gateway on 127.0.0.1:8080.
 */
export default defineConfig(({ command }) => ({
  root: here('./app'),
  // Built: relative to the page's <base href>; served by `vite` (dev): at /console/ like the gateway.
  base: command === 'serve' ? '/console/' : './',
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: here('./dist/app'),
    emptyOutDir: true,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    target: 'es2022',
  },
  server: {
    proxy: { '/v1': 'http://127.0.0.1:8080', '/inference': 'http://127.0.0.1:8080' },
  },
}));
