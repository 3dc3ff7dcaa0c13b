import { readImageSettings, type ImageSettings } from '@berth/core';

/** Settings of the PostgreSQL template gateway, read from the environment. */
export interface PostgresGatewaySettings {
  readonly host: string;
  readonly port: number;
  readonly accountId: string;
  readonly apiKey: string | undefined;
  /** `postgres://user:password@host:5432/database` (required). */
  readonly databaseUrl: string;
  /** Schema holding Berth's tables (created if missing). */
  readonly schema: string;
  /** Connections of the pool. */
  readonly maxConnections: number;
  /** Queue jobs this instance runs at once. */
  readonly workerConcurrency: number;
  /** Pause of an idle queue worker between polls, ms. */
  readonly workerPollIntervalMs: number;
  /** Recorded on the leases this instance takes; default derived from host and pid. */
  readonly workerId: string | undefined;
  readonly logLevel: 'debug' | 'info' | 'warn' | 'error';
  /** Outbound requests to user-supplied URLs may reach loopback (`BERTH_ALLOW_LOOPBACK_URLS`). */
  readonly allowLoopbackUrls: boolean;
  /** … and private networks, e.g. MCP servers in the cluster (`BERTH_ALLOW_PRIVATE_URLS`). */
  readonly allowPrivateUrls: boolean;
  /** Image generation: system account, model ids, safety terms (`BERTH_SYSTEM_ACCOUNT_ID`, `BERTH_IMAGE_*`). */
  readonly images: ImageSettings;
  /** Largest dataset file accepted (`BERTH_MAX_DATASET_FILE_BYTES`, default 256 MiB). */
  readonly maxDatasetFileBytes: number;
  /** Largest model file accepted, enforced while it streams (`BERTH_MAX_MODEL_FILE_BYTES`, default 16 GiB). */
  readonly maxModelFileBytes: number;
  /** Largest total of one model's files (`BERTH_MAX_MODEL_BYTES`, default 256 GiB). */
  readonly maxModelBytes: number;
}

/** Thrown when the environment cannot configure a PostgreSQL gateway; the message says what to set. */
export class SettingsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SettingsError';
  }
}

function positiveInteger(env: NodeJS.ProcessEnv, name: string, fallback: number, max = 10_000): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > max) throw new SettingsError(`${name} "${raw}" must be an integer from 1 to ${max}`);
  return value;
}

/** `true` or `false` (any case); unset or empty is false. */
function booleanSetting(env: NodeJS.ProcessEnv, name: string): boolean {
  const raw = env[name] ?? '';
  if (/^(false)?$/i.test(raw)) return false;
  if (/^true$/i.test(raw)) return true;
  throw new SettingsError(`${name} "${raw}" must be true or false`);
}

function imageSettings(env: NodeJS.ProcessEnv): ImageSettings {
  try {
    return readImageSettings(env);
  } catch (error) {
    throw new SettingsError(error instanceof Error ? error.message : String(error));
  }
}

/**
 * Reads the settings. @throws SettingsError when DATABASE_URL is missing or not a postgres:// URL, or
 * another variable is malformed.
 */
export function readPostgresSettings(env: NodeJS.ProcessEnv = process.env): PostgresGatewaySettings {
  const databaseUrl = env.DATABASE_URL;
  if (databaseUrl === undefined || databaseUrl === '') {
    throw new SettingsError(
      'DATABASE_URL is not set. This template runs on PostgreSQL: set DATABASE_URL=postgres://user:password@host:5432/database ' +
        '(or run `npm start` for the embedded memory store).',
    );
  }
  if (!/^postgres(ql)?:\/\//.test(databaseUrl)) throw new SettingsError('DATABASE_URL must start with postgres:// or postgresql://');
  const port = Number(env.PORT ?? 8080);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new SettingsError(`PORT "${env.PORT}" is not a port number`);
  const level = env.LOG_LEVEL ?? 'info';
  if (!['debug', 'info', 'warn', 'error'].includes(level)) throw new SettingsError(`LOG_LEVEL "${level}" is not one of debug, info, warn, error`);
  const schema = env.BERTH_DATABASE_SCHEMA || 'public';
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema)) throw new SettingsError(`BERTH_DATABASE_SCHEMA "${schema}" must be letters, digits and underscores`);
  return {
    host: env.HOST ?? '127.0.0.1',
    port,
    accountId: env.BERTH_ACCOUNT_ID ?? 'my-account',
    apiKey: env.BERTH_API_KEY || undefined,
    databaseUrl,
    schema,
    maxConnections: positiveInteger(env, 'BERTH_DATABASE_POOL_SIZE', 10, 1000),
    workerConcurrency: positiveInteger(env, 'BERTH_WORKER_CONCURRENCY', 4, 1000),
    workerPollIntervalMs: positiveInteger(env, 'BERTH_WORKER_POLL_INTERVAL_MS', 1000, 3_600_000),
    workerId: env.BERTH_WORKER_ID || undefined,
    logLevel: level as PostgresGatewaySettings['logLevel'],
    allowLoopbackUrls: booleanSetting(env, 'BERTH_ALLOW_LOOPBACK_URLS'),
    allowPrivateUrls: booleanSetting(env, 'BERTH_ALLOW_PRIVATE_URLS'),
    images: imageSettings(env),
    maxDatasetFileBytes: positiveInteger(env, 'BERTH_MAX_DATASET_FILE_BYTES', 256 * 1024 * 1024, Number.MAX_SAFE_INTEGER),
    maxModelFileBytes: positiveInteger(env, 'BERTH_MAX_MODEL_FILE_BYTES', 16 * 1024 ** 3, Number.MAX_SAFE_INTEGER),
    maxModelBytes: positiveInteger(env, 'BERTH_MAX_MODEL_BYTES', 256 * 1024 ** 3, Number.MAX_SAFE_INTEGER),
  };
}

/** `postgresql://host:port/database` without credentials, for logs. */
export function redactDatabaseUrl(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl);
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return 'postgresql://(unparsable)';
  }
}
