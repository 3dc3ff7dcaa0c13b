/** Settings of the template gateway, read from the environment. */
export interface TemplateSettings {
  readonly host: string;
  readonly port: number;
  readonly accountId: string;
  readonly apiKey: string | undefined;
  readonly databaseUrl: string | undefined;
  readonly logLevel: 'debug' | 'info' | 'warn' | 'error';
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
  };
}
