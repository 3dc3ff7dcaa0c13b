import type { FieldDeclarations } from './fields.js';

/** Entries kept per declaration set; the oldest is dropped past this. */
const MAX_ENTRIES = 256;

/**
 * Memoizes a parse of request text against a resource's field declarations (filters, orders): list
 * requests repeat the same few texts, and parsing one can cost more than the page it selects. Results are
 * shared between requests, so they must be read-only (their types are) — which also lets storage back
 * ends key caches on their identity. A parse that throws is not remembered: the error, with its
 * position, is raised again on every call.
 */
export class ParseCache<T> {
  private readonly byDeclarations = new WeakMap<FieldDeclarations, Map<string, T>>();

  get(declarations: FieldDeclarations, key: string, parse: () => T): T {
    let entries = this.byDeclarations.get(declarations);
    if (entries === undefined) {
      entries = new Map();
      this.byDeclarations.set(declarations, entries);
    }
    if (entries.has(key)) return entries.get(key)!;
    const parsed = parse();
    if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value!);
    entries.set(key, parsed);
    return parsed;
  }
}
