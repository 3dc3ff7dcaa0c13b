export { postgresStorage, type PostgresStorageOptions } from './postgres-storage-plugin.js';
export { PostgresStorage, type PostgresStorageConfig } from './postgres-storage.js';
export { migrate, migrations, MigrationError, type Migration, type MigrateOptions } from './migrations.js';
export { pglitePool, type PGliteLike } from './pglite-pool.js';
export { mapDriverError } from './driver-errors.js';
export type { SqlConnection, SqlExecutor, SqlPool, SqlResult } from './sql-client.js';
