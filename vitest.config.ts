import { defineConfig } from 'vitest/config';

/**
 * Test projects (every test file belongs to exactly one):
 * - `unit`: tests beside the code in packages, templates and bench, no database, no HTTP server
 *   (`npm run test:unit`, what a contributor runs while working);
 * - `pg`: every `*.pg.test.ts` (PostgreSQL through `DATABASE_URL`, or embedded PGlite without it),
 *   including the multi-instance suite (`npm run test:pg`);
 * - `e2e`: suites under `test/` that drive the gateway from outside, and `*.e2e.test.ts` beside the code
 *   of packages that drive a gateway they start (the `berth` CLI), and the example projects' tests under
 *   `examples/` (apps embedding a gateway) (`npm run test:e2e`);
 * - `fuzz`: the property-based suites under `test/fuzz`.
 * `npm test` runs them all.
 *
 * Tests run on the packages' TypeScript sources, with no build: workspace packages export their sources
 * under the `@berth/source` condition (their default exports are the built `dist/` files).
 */
const pg = '**/*.pg.test.ts';
const e2e = '**/*.e2e.test.ts';

export default defineConfig({
  // Vitest's default server conditions (Vite's without 'module', which would pick bundler-only builds such as
  // @aws-sdk's dist-es) after the source condition.
  ssr: { resolve: { conditions: ['@berth/source', 'node', 'development|production'] } },
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['packages/*/src/**/*.test.ts', 'packages/console/app/src/**/*.test.ts', 'templates/*/src/**/*.test.ts', 'bench/**/*.test.ts'],
          exclude: ['**/node_modules/**', pg, e2e],
        },
      },
      {
        extends: true,
        test: {
          name: 'pg',
          include: [`packages/*/src/${pg}`, `templates/*/src/${pg}`, `test/${pg}`],
          exclude: ['**/node_modules/**'],
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/**/*.test.ts', `packages/*/src/**/${e2e}`, 'examples/*/src/**/*.test.ts'],
          // Every gateway's log lines are scanned for the secrets the tests created (test/e2e/log-capture.ts).
          globalSetup: ['test/e2e/log-scan.global-setup.ts'],
          exclude: ['**/node_modules/**', 'test/fuzz/**', pg],
        },
      },
      {
        extends: true,
        test: {
          name: 'fuzz',
          include: ['test/fuzz/**/*.test.ts'],
          exclude: ['**/node_modules/**', pg],
        },
      },
    ],
  },
});
