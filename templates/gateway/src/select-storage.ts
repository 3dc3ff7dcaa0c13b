import { FilesystemBlobStore, type BlobStore, type GatewayPlugin } from '@berth/core';
import { s3BlobStore } from '@berth/plugin-blob-s3';
import { memoryStorage, MemoryStorage } from '@berth/plugin-storage-memory';
import { postgresStorage } from '@berth/plugin-storage-postgres';
import { join, resolve } from 'node:path';
import type { TemplateSettings } from './gateway-config.js';

export type BlobStoreKind = 'memory' | 'fs' | 'pg' | 's3';

/** Where `npm start` keeps files on disk (`BERTH_DATA_DIR`, default `./.berth-data`); blobs under `blobs/`. */
export function dataDirectory(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(env.BERTH_DATA_DIR || '.berth-data');
}

/**
 * The blob store `BERTH_BLOB_STORE` names: `fs` (files under the data directory), `memory`, `pg` (the
 * PostgreSQL database's chunk tables; needs `DATABASE_URL`) or `s3` (`BERTH_S3_BUCKET`, and optionally
 * `BERTH_S3_PREFIX`, `BERTH_S3_ENDPOINT`, `BERTH_S3_REGION`, `BERTH_S3_FORCE_PATH_STYLE`; credentials from
 * the AWS SDK's usual chain). Default: `pg` when `DATABASE_URL` is set, else `fs`.
 */
export function blobStoreKind(settings: Pick<TemplateSettings, 'databaseUrl'>, env: NodeJS.ProcessEnv = process.env): BlobStoreKind {
  const raw = env.BERTH_BLOB_STORE || (settings.databaseUrl === undefined ? 'fs' : 'pg');
  if (!['memory', 'fs', 'pg', 's3'].includes(raw)) throw new Error(`BERTH_BLOB_STORE "${raw}" is not one of memory, fs, pg, s3`);
  if (raw === 'pg' && settings.databaseUrl === undefined) throw new Error('BERTH_BLOB_STORE=pg needs DATABASE_URL');
  return raw as BlobStoreKind;
}

/** The blob store to hand to the storage plugin; undefined when the storage keeps blobs itself. */
function selectBlobStore(kind: BlobStoreKind, env: NodeJS.ProcessEnv): BlobStore | undefined {
  switch (kind) {
    case 'fs':
      return new FilesystemBlobStore({ directory: join(dataDirectory(env), 'blobs') });
    case 's3': {
      const bucket = env.BERTH_S3_BUCKET ?? '';
      if (bucket === '') throw new Error('BERTH_BLOB_STORE=s3 needs BERTH_S3_BUCKET');
      const forcePathStyle = /^true$/i.test(env.BERTH_S3_FORCE_PATH_STYLE ?? '');
      return s3BlobStore({
        bucket, forcePathStyle,
        ...(env.BERTH_S3_PREFIX ? { prefix: env.BERTH_S3_PREFIX } : {}),
        ...(env.BERTH_S3_ENDPOINT ? { endpoint: env.BERTH_S3_ENDPOINT } : {}),
        ...(env.BERTH_S3_REGION ? { region: env.BERTH_S3_REGION } : {}),
      });
    }
    case 'memory':
      return new MemoryStorage().blobs;
    case 'pg':
      return undefined;
  }
}

/**
 * The storage plugin of `npm start`: PostgreSQL when `DATABASE_URL` is set (tables in the schema named
 * by `BERTH_DATABASE_SCHEMA`, default `public`), else the embedded memory store; blobs in the store
 * {@link blobStoreKind} picks.
 */
export function selectStorage(settings: Pick<TemplateSettings, 'databaseUrl'>, env: NodeJS.ProcessEnv = process.env): GatewayPlugin {
  const blobs = selectBlobStore(blobStoreKind(settings, env), env);
  const withBlobs = blobs === undefined ? {} : { blobs };
  if (settings.databaseUrl === undefined) return memoryStorage(withBlobs);
  return postgresStorage({ connectionString: settings.databaseUrl, schema: env.BERTH_DATABASE_SCHEMA || 'public', ...withBlobs });
}

/** A short description of the selected storage for the start-up log (no credentials). */
export function describeStorage(settings: Pick<TemplateSettings, 'databaseUrl'>, env: NodeJS.ProcessEnv = process.env): string {
  const kind = blobStoreKind(settings, env);
  const blobs = kind === 'fs' ? `fs:${join(dataDirectory(env), 'blobs')}` : kind === 's3' ? `s3:${env.BERTH_S3_BUCKET ?? ''}` : kind;
  if (settings.databaseUrl === undefined) return `memory, blobs ${blobs}`;
  try {
    const url = new URL(settings.databaseUrl);
    return `postgresql://${url.host}${url.pathname}, blobs ${blobs}`;
  } catch {
    return `postgresql, blobs ${blobs}`;
  }
}
