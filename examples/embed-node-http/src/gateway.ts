import { consoleLogger, createGateway, type Gateway } from '@berth/core';
import { apiKeyAuth } from '@berth/plugin-auth-api-keys';
import { gpuxRuntime } from '@berth/plugin-runtime-gpux';
import { memoryStorage } from '@berth/plugin-storage-memory';

/** What the app reads from its environment. */
export interface Settings {
  readonly host: string;
  readonly port: number;
  /** The account created on first start (`BERTH_ACCOUNT_ID`, default `my-account`). */
  readonly accountId: string;
  /** Its admin key (`BERTH_API_KEY`); without it a key is generated and logged once. */
  readonly apiKey: string | undefined;
  readonly logLevel: 'debug' | 'info' | 'warn' | 'error';
}

export function readSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  const port = Number(env.PORT ?? '8080');
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT "${env.PORT}" is not a port number`);
  const logLevel = env.LOG_LEVEL ?? 'info';
  if (logLevel !== 'debug' && logLevel !== 'info' && logLevel !== 'warn' && logLevel !== 'error') throw new Error(`LOG_LEVEL "${logLevel}" is not debug, info, warn or error`);
  return { host: env.HOST ?? '127.0.0.1', port, accountId: env.BERTH_ACCOUNT_ID ?? 'my-account', apiKey: env.BERTH_API_KEY || undefined, logLevel };
}

/**
 * The Berth gateway this app embeds: memory storage, API keys, and the GPUX runtime on its simulated
 * provisioner (replicas are reference-engine servers on loopback ports, so deployments and streamed chat
 * work without accelerators). Swap in `postgresStorage()` and a real provisioner for production.
 */
export function buildGateway(settings: Settings): Gateway {
  return createGateway({
    plugins: [memoryStorage(), apiKeyAuth(), gpuxRuntime()],
    config: { bootstrapAccountId: settings.accountId, ...(settings.apiKey ? { bootstrapApiKey: settings.apiKey } : {}) },
    logger: consoleLogger(settings.logLevel),
  });
}
