import { readPath } from '../listing/index.js';
import type { JsonObject } from '../ports/index.js';
import type { ResourceRecord } from './records.js';

const noNames: ReadonlySet<string> = new Set();

/** The body that filters and sort keys see: `name` is always the stored name (the unique tiebreaker). */
export function listingView(record: ResourceRecord): JsonObject {
  if (record.data.name === record.name) return record.data;
  const view: JsonObject = { ...record.data };
  Object.defineProperty(view, 'name', { value: record.name, writable: true, enumerable: true, configurable: true });
  return view;
}

/**
 * Where the resource store finds names without scanning everything: per collection
 * (`parent\u0000collection` → names, so a list reads only its own collection) and equality indexes,
 * built on first use per collection and field path (value → names), so a list whose filter is (or ANDs)
 * `field = "literal"` on a string or enum field visits only those names.
 */
export class ResourceIndexes {
  private readonly collections = new Map<string, Set<string>>();
  private readonly equalityIndexes = new Map<string, Map<string, Map<string, Set<string>>>>();

  /** @param lookup the stored record under a name (to build an equality index from a collection). */
  constructor(private readonly lookup: (name: string) => ResourceRecord | undefined) {}

  private indexedValue(record: ResourceRecord, path: string): string | undefined {
    const value = readPath(listingView(record), path.split('.'));
    return typeof value === 'string' ? value : undefined;
  }

  private addToEqualityIndexes(record: ResourceRecord): void {
    const byPath = this.equalityIndexes.get(`${record.parent}\u0000${record.collection}`);
    if (!byPath) return;
    for (const [path, byValue] of byPath) {
      const value = this.indexedValue(record, path);
      if (value === undefined) continue;
      let names = byValue.get(value);
      if (!names) {
        names = new Set();
        byValue.set(value, names);
      }
      names.add(record.name);
    }
  }

  private removeFromEqualityIndexes(record: ResourceRecord): void {
    const byPath = this.equalityIndexes.get(`${record.parent}\u0000${record.collection}`);
    if (!byPath) return;
    for (const [path, byValue] of byPath) {
      const value = this.indexedValue(record, path);
      if (value !== undefined) byValue.get(value)?.delete(record.name);
    }
  }

  /** Names in the collection whose `path` holds exactly `value` (builds the index on first use). */
  namesWhere(parent: string, collection: string, path: string, value: string): ReadonlySet<string> {
    const key = `${parent}\u0000${collection}`;
    let byPath = this.equalityIndexes.get(key);
    if (!byPath) {
      byPath = new Map();
      this.equalityIndexes.set(key, byPath);
    }
    let byValue = byPath.get(path);
    if (!byValue) {
      byValue = new Map();
      byPath.set(path, byValue);
      for (const name of this.namesIn(parent, collection)) {
        const record = this.lookup(name);
        const v = record ? this.indexedValue(record, path) : undefined;
        if (record === undefined || v === undefined) continue;
        let names = byValue.get(v);
        if (!names) {
          names = new Set();
          byValue.set(v, names);
        }
        names.add(name);
      }
    }
    return byValue.get(value) ?? noNames;
  }

  /** Keeps the equality indexes right when a record's body changes. */
  replaced(previous: ResourceRecord, next: ResourceRecord): void {
    this.removeFromEqualityIndexes(previous);
    this.addToEqualityIndexes(next);
  }

  /** Adds a new record to its collection and to the equality indexes built so far. */
  index(record: ResourceRecord): void {
    this.addToEqualityIndexes(record);
    const key = `${record.parent}\u0000${record.collection}`;
    let names = this.collections.get(key);
    if (names === undefined) {
      names = new Set();
      this.collections.set(key, names);
    }
    names.add(record.name);
  }

  /** Removes a record from its collection and from every equality index. */
  unindex(record: ResourceRecord): void {
    this.removeFromEqualityIndexes(record);
    this.collections.get(`${record.parent}\u0000${record.collection}`)?.delete(record.name);
  }

  /** Every name listed under `parent` in `collection`. */
  namesIn(parent: string, collection: string): ReadonlySet<string> {
    return this.collections.get(`${parent}\u0000${collection}`) ?? noNames;
  }
}
