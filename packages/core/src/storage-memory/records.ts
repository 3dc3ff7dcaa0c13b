import type { JsonObject, JsonValue, QueuedJob, StoredResource } from '../ports/index.js';

/** A stored resource: its name, where it is listed, its frozen body and its etag counter. */
export interface ResourceRecord {
  readonly name: string;
  readonly parent: string;
  readonly collection: string;
  readonly data: JsonObject;
  readonly version: number;
}

/** A queued job as the in-memory queue keeps it: the port's job with times in epoch milliseconds. */
export interface JobRecord extends Omit<QueuedJob, 'runAt' | 'leaseExpiresAt'> {
  readonly runAt: number;
  readonly leaseExpiresAt?: number;
  readonly workerId?: string;
  readonly dedupeKey?: string;
  /** Enqueue order: the tiebreaker between jobs due at the same time. */
  readonly order: number;
}

/** A key-value entry and its expiry (epoch milliseconds), if any. */
export interface KvRecord {
  readonly value: JsonValue;
  readonly expiresAt?: number;
}

export const clone = <T extends JsonValue>(value: T): T => structuredClone(value);

/** Deep-freezes a stored body, so reads can hand it out without copying and no caller can change it in place. */
function deepFreeze<T extends JsonValue>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) deepFreeze(child as JsonValue);
    Object.freeze(value);
  }
  return value;
}

/** A frozen copy of the caller's value: what a write stores. */
export const freezeCopy = <T extends JsonValue>(value: T): T => deepFreeze(clone(value));

export const iso = (ms: number): string => new Date(ms).toISOString();

/** Stored bodies are frozen at write time: reads share them instead of copying (writes copy the caller's). */
export function toStored(record: ResourceRecord): StoredResource {
  return { name: record.name, data: record.data, etag: String(record.version) };
}
