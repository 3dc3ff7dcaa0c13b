import { isValidId, parseImageModelIds, type ImageModelIds } from '@berth/core';

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
  /** The account in the image paths (`BERTH_SYSTEM_ACCOUNT_ID`, default `system`). */
  readonly systemAccountId: string;
  /** Ids of the image models (`BERTH_IMAGE_MODEL_IDS`: `role=id` pairs). */
  readonly imageModelIds: ImageModelIds;
  /** Prompts refused by the reference safety checker (`BERTH_IMAGE_BLOCKED_TERMS`, comma-separated). */
  readonly imageBlockedTerms: readonly string[];
  /** Outputs refused below safety_tolerance 2 (`BERTH_IMAGE_SENSITIVE_TERMS`, comma-separated). */
  readonly imageSensitiveTerms: readonly string[];
}

/** A comma-separated list; blank entries dropped. */
function listSetting(env: NodeJS.ProcessEnv, name: string): string[] {
  return (env[name] ?? '').split(',').map((term) => term.trim()).filter((term) => term !== '');
}

function systemAccountSetting(env: NodeJS.ProcessEnv): string {
  const id = env.BERTH_SYSTEM_ACCOUNT_ID || 'system';
  if (!isValidId(id)) throw new Error(`BERTH_SYSTEM_ACCOUNT_ID "${id}" must be 1-63 lowercase letters, digits and hyphens`);
  return id;
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
    systemAccountId: systemAccountSetting(env),
    imageModelIds: parseImageModelIds(env.BERTH_IMAGE_MODEL_IDS),
    imageBlockedTerms: listSetting(env, 'BERTH_IMAGE_BLOCKED_TERMS'),
    imageSensitiveTerms: listSetting(env, 'BERTH_IMAGE_SENSITIVE_TERMS'),
  };
}
