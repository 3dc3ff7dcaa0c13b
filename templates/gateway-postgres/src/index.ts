export { buildPostgresGateway, type BuildPostgresGatewayOptions } from './build-postgres-gateway.js';
export { readPostgresSettings, redactDatabaseUrl, SettingsError, type PostgresGatewaySettings } from './postgres-settings.js';
export { runPostgresGateway } from './serve.js';
