import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { chromium, type BrowserContext } from 'playwright-core';
import { serveGateway } from '@berth/plugin-transport-fastify';
import { buildGateway } from '../../templates/gateway/src/build-gateway.js';
import { readSettings } from '../../templates/gateway/src/gateway-config.js';
import { selectStorage } from '../../templates/gateway/src/select-storage.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** Debian's Chromium (`apt-get install chromium`; .ci/run installs it): the browser the console tests drive. */
export const chromiumPath = '/usr/bin/chromium';
export const haveChromium = existsSync(chromiumPath);

/** Where the tests leave their screenshots (CI keeps the folder as artifacts; git ignores it). */
export const artifacts = join(root, 'artifacts', 'console');

/** Builds the console's assets unless they are up to date (the transport serves them from packages/console/dist/app). */
export async function buildConsole(): Promise<void> {
  await promisify(execFile)(process.execPath, [join(root, 'packages', 'console', 'build-app.mjs')], { cwd: root, timeout: 120_000 });
}

export interface ConsoleGateway {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * A gateway assembled as `npm start` assembles it on its embedded default (memory storage, files under a
 * scratch folder, the reference runtime's simulated replicas), with admin key `admin-secret-key`.
 */
export async function startGateway(): Promise<ConsoleGateway> {
  const settings = readSettings({ BERTH_API_KEY: 'admin-secret-key', PORT: '0', LOG_LEVEL: 'error' });
  const workdir = await mkdtemp(join(tmpdir(), 'berth-console-'));
  const gateway = buildGateway(settings, selectStorage(settings, { BERTH_DATA_DIR: join(workdir, 'data') }));
  await gateway.start();
  const server = await serveGateway(gateway, { host: '127.0.0.1', port: 0 });
  return {
    url: server.url,
    close: async () => {
      await server.close();
      await gateway.stop();
      await rm(workdir, { recursive: true, force: true });
    },
  };
}

export interface RunningBrowser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

/**
 * Chromium headless, as this machine's notes prescribe: no sandbox (root), no GPU, and none of its
 * background connections (the network is closed), in a new empty profile (Playwright passes it as
 * `--user-data-dir`).
 */
export async function launchChromium(): Promise<RunningBrowser> {
  const profile = await mkdtemp(join(tmpdir(), 'berth-console-chromium-'));
  await mkdir(artifacts, { recursive: true });
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    timeout: 60_000,
    viewport: { width: 1280, height: 860 },
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync',
    ],
  });
  return {
    context,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
