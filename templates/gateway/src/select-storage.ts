import type { GatewayPlugin } from '@berth/core';
import { memoryStorage } from '@berth/plugin-storage-memory';
import { postgresStorage } from '@berth/plugin-storage-postgres';
import type { TemplateSettings } from './gateway-config.js';

/**
 * The storage plugin of `npm start`: PostgreSQL when `DATABASE_URL` is set (tables in the schema named
 * by `BERTH_DATABASE_SCHEMA`, default `public`), else the embedded memory store.
 */
export function selectStorage(settings: Pick<TemplateSettings, 'databaseUrl'>, env: NodeJS.ProcessEnv = process.env): GatewayPlugin {
  if (settings.databaseUrl === undefined) return memoryStorage();
  return postgresStorage({ connectionString: settings.databaseUrl, schema: env.BERTH_DATABASE_SCHEMA || 'public' });
}

/** A short description of the selected storage for the start-up log (no credentials). */
export function describeStorage(settings: Pick<TemplateSettings, 'databaseUrl'>): string {
  if (settings.databaseUrl === undefined) return 'memory';
  try {
    const url = new URL(settings.databaseUrl);
    return `postgresql://${url.host}${url.pathname}`;
  } catch {
    return 'postgresql';
  }
}
