import { readImageSettings, type ImageSettings } from '@berth/core';

/** Settings of the template gateway, read from the environment. */
export interface TemplateSettings {
  readonly host: string;
  readonly port: number;
  readonly accountId: string;
  readonly apiKey: string | undefined;
  readonly databaseUrl: string | undefined;
  readonly logLevel: 'debug' | 'info' | 'warn' | 'error';
  /** Outbound requests to user-supplied URLs may reach loopback (`BERTH_ALLOW_LOOPBACK_URLS`). */
  readonly allowLoopbackUrls: boolean;
  /** … and private networks (`BERTH_ALLOW_PRIVATE_URLS`). */
  readonly allowPrivateUrls: boolean;
  /**
   * Image generation: the system account in the image paths, the model ids and the reference safety
   * checker's terms (`BERTH_SYSTEM_ACCOUNT_ID`, `BERTH_IMAGE_MODEL_IDS`, `BERTH_IMAGE_BLOCKED_TERMS`,
   * `BERTH_IMAGE_SENSITIVE_TERMS`).
   */
  readonly images: ImageSettings;
  /** Largest dataset file accepted (`BERTH_MAX_DATASET_FILE_BYTES`, default 256 MiB). */
  readonly maxDatasetFileBytes: number;
  /** Largest model file accepted, enforced while it streams (`BERTH_MAX_MODEL_FILE_BYTES`, default 16 GiB). */
  readonly maxModelFileBytes: number;
  /** Largest total of one model's files (`BERTH_MAX_MODEL_BYTES`, default 256 GiB). */
  readonly maxModelBytes: number;
}

/** A positive number of bytes; unset or empty is `fallback`. */
function byteCountSetting(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name] ?? '';
  if (raw === '') return fallback;
  if (!/^[0-9]{1,15}$/.test(raw) || Number(raw) < 1) throw new Error(`${name} "${raw}" must be a positive number of bytes`);
  return Number(raw);
}

/** `true` or `false` (any case); unset or empty is false. */
function booleanSetting(env: NodeJS.ProcessEnv, name: string): boolean {
  const raw = env[name] ?? '';
  if (/^(false)?$/i.test(raw)) return false;
  if (/^true$/i.test(raw)) return true;
  throw new Error(`${name} "${raw}" must be true or false`);
}

export function readSettings(env: NodeJS.ProcessEnv = process.env): TemplateSettings {
  const port = Number(env.PORT ?? 8080);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT "${env.PORT}" is not a port number`);
  const level = env.LOG_LEVEL ?? 'info';
  if (!['debug', 'info', 'warn', 'error'].includes(level)) throw new Error(`LOG_LEVEL "${level}" is not one of debug, info, warn, error`);
  return {
    host: env.HOST ?? '127.0.0.1',
    port,
    accountId: env.BERTH_ACCOUNT_ID ?? 'my-account',
    apiKey: env.BERTH_API_KEY || undefined,
    databaseUrl: env.DATABASE_URL || undefined,
    logLevel: level as TemplateSettings['logLevel'],
    allowLoopbackUrls: booleanSetting(env, 'BERTH_ALLOW_LOOPBACK_URLS'),
    allowPrivateUrls: booleanSetting(env, 'BERTH_ALLOW_PRIVATE_URLS'),
    images: readImageSettings(env),
    maxDatasetFileBytes: byteCountSetting(env, 'BERTH_MAX_DATASET_FILE_BYTES', 256 * 1024 * 1024),
    maxModelFileBytes: byteCountSetting(env, 'BERTH_MAX_MODEL_FILE_BYTES', 16 * 1024 ** 3),
    maxModelBytes: byteCountSetting(env, 'BERTH_MAX_MODEL_BYTES', 256 * 1024 ** 3),
  };
}
