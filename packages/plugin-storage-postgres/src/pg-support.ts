import { type JsonValue } from '@berth/core';
import { mapDriverError } from './driver-errors.js';
import { quoteSchema } from './migrations.js';
import type { SqlExecutor, SqlResult } from './sql-client.js';

/** Shared plumbing of the PostgreSQL stores: table names, statement execution, value decoding. */

/** Table names of one schema, quoted once. */
export interface Tables {
  readonly schema: string;
  readonly resources: string;
  readonly versionSeq: string;
  readonly blobs: string;
  readonly blobChunks: string;
  readonly jobs: string;
  readonly outbox: string;
  readonly consumers: string;
  readonly kv: string;
}

export function tablesOf(schema: string): Tables {
  const s = quoteSchema(schema);
  return {
    schema,
    resources: `${s}.berth_resources`,
    versionSeq: `${s}.berth_resource_version_seq`,
    blobs: `${s}.berth_blobs`,
    blobChunks: `${s}.berth_blob_chunks`,
    jobs: `${s}.berth_jobs`,
    outbox: `${s}.berth_outbox`,
    consumers: `${s}.berth_outbox_consumers`,
    kv: `${s}.berth_kv`,
  };
}


/** Runs one statement, translating driver errors to the port's codes. */
export async function run(db: SqlExecutor, text: string, params: unknown[] = [], name?: string): Promise<SqlResult> {
  try {
    return await db.query(text, params);
  } catch (error) {
    throw mapDriverError(error, name);
  }
}

/** Where statements go: the pool, or the connection of a transaction. Throws UNAVAILABLE before start. */
export type ExecutorSource = () => SqlExecutor;

export const json = (value: JsonValue): string => JSON.stringify(value);

export function parseJson(value: unknown): JsonValue {
  if (typeof value === 'string') return JSON.parse(value) as JsonValue;
  return value as JsonValue;
}

export function iso(value: unknown): string {
  return value instanceof Date ? value.toISOString() : new Date(String(value)).toISOString();
}

export function text(value: unknown): string {
  return typeof value === 'string' ? value : String(value);
}
