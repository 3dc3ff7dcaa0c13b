import type { RequestContext } from '../kernel/index.js';
import type { JsonValue, KeyValueStore } from '../ports/index.js';
import { clone, type KvRecord } from './records.js';
import type { MemoryState } from './state.js';

/** The key-value store in memory: expired entries are dropped when next read. */
export class MemoryKeyValueStore implements KeyValueStore {
  constructor(private readonly state: MemoryState) {}

  private live(key: string): KvRecord | undefined {
    const record = this.state.kv.get(key);
    if (record === undefined) return undefined;
    if (record.expiresAt !== undefined && record.expiresAt <= this.state.now()) {
      this.state.kv.delete(key);
      return undefined;
    }
    return record;
  }

  private expiry(ttlMs: number | undefined): { expiresAt?: number } {
    return ttlMs === undefined ? {} : { expiresAt: this.state.now() + ttlMs };
  }

  async get(_ctx: RequestContext, key: string): Promise<JsonValue | undefined> {
    const record = this.live(key);
    return record === undefined ? undefined : clone(record.value);
  }

  async set(_ctx: RequestContext, key: string, value: JsonValue, options?: { ttlMs?: number; ifAbsent?: boolean }): Promise<boolean> {
    if (options?.ifAbsent === true && this.live(key) !== undefined) return false;
    this.state.kv.set(key, { value: clone(value), ...this.expiry(options?.ttlMs) });
    return true;
  }

  async delete(_ctx: RequestContext, key: string): Promise<boolean> {
    const existed = this.live(key) !== undefined;
    this.state.kv.delete(key);
    return existed;
  }

  async increment(_ctx: RequestContext, key: string, by: number, ttlMs?: number): Promise<number> {
    const record = this.live(key);
    if (record === undefined) {
      this.state.kv.set(key, { value: by, ...this.expiry(ttlMs) });
      return by;
    }
    // A live counter keeps its expiry: the ttl opens a window, later increments do not extend it.
    const value = (typeof record.value === 'number' ? record.value : 0) + by;
    this.state.kv.set(key, { ...record, value });
    return value;
  }
}
