import { aborted, alreadyExists, notFound } from '../errors/index.js';
import type { RequestContext } from '../kernel/index.js';
import { compareSortKeys, evaluateFilter } from '../listing/index.js';
import type { JsonObject, JsonValue, ListQuery, ListResult, StoredResource, TransactionResourceStore } from '../ports/index.js';
import { listingView } from './indexes.js';
import { cachedSortKey, indexableEquality, orderSignature } from './listing.js';
import { freezeCopy, toStored, type ResourceRecord } from './records.js';
import { splitResourceName } from './resource-name.js';
import type { MemoryState } from './state.js';
import type { WriteScope } from './transactions.js';

/** The resource store in memory: frozen bodies, a global etag counter, indexed lists. */
export class MemoryResourceStore implements TransactionResourceStore {
  constructor(
    private readonly state: MemoryState,
    private readonly scope: WriteScope,
  ) {}

  create(_ctx: RequestContext, name: string, data: JsonObject): Promise<StoredResource> {
    return this.scope.write((undo) => {
      const { resources, indexes } = this.state;
      if (resources.has(name)) throw alreadyExists(name);
      const record: ResourceRecord = { name, ...splitResourceName(name), data: freezeCopy(data), version: ++this.state.version };
      resources.set(name, record);
      indexes.index(record);
      undo?.push(() => {
        resources.delete(name);
        indexes.unindex(record);
      });
      return toStored(record);
    });
  }

  async get(_ctx: RequestContext, name: string): Promise<StoredResource | undefined> {
    const record = this.state.resources.get(name);
    return record === undefined ? undefined : toStored(record);
  }

  /**
   * A plain read: a transaction holds the store's mutex for its whole run, and every write from outside
   * it waits for that mutex, so nothing can change the resource before the transaction ends.
   */
  getForUpdate(ctx: RequestContext, name: string): Promise<StoredResource | undefined> {
    return this.get(ctx, name);
  }

  update(_ctx: RequestContext, name: string, data: JsonObject, expectedEtag: string): Promise<StoredResource> {
    return this.scope.write((undo) => {
      const { resources, indexes } = this.state;
      const previous = resources.get(name);
      if (previous === undefined) throw notFound(name);
      if (String(previous.version) !== expectedEtag) throw aborted(`${name} was changed concurrently (etag mismatch)`, { reason: 'ETAG_MISMATCH' });
      const record: ResourceRecord = { ...previous, data: freezeCopy(data), version: ++this.state.version };
      resources.set(name, record);
      indexes.replaced(previous, record);
      undo?.push(() => {
        resources.set(name, previous);
        indexes.replaced(record, previous);
      });
      return toStored(record);
    });
  }

  delete(_ctx: RequestContext, name: string, expectedEtag?: string): Promise<void> {
    return this.scope.write((undo) => {
      const { resources, indexes } = this.state;
      const previous = resources.get(name);
      if (previous === undefined) throw notFound(name);
      if (expectedEtag !== undefined && String(previous.version) !== expectedEtag) {
        throw aborted(`${name} was changed concurrently (etag mismatch)`, { reason: 'ETAG_MISMATCH' });
      }
      resources.delete(name);
      indexes.unindex(previous);
      undo?.push(() => {
        resources.set(name, previous);
        indexes.index(previous);
      });
    });
  }

  async list(_ctx: RequestContext, query: ListQuery): Promise<ListResult> {
    const { indexes } = this.state;
    const equality = query.filter ? indexableEquality(query.filter) : undefined;
    const candidates = equality
      ? indexes.namesWhere(query.parent, query.collection, equality.path, equality.value)
      : indexes.namesIn(query.parent, query.collection);
    // Nothing to look at (e.g. a model's deployed models, looked up on every GET of a model without any).
    if (candidates.size === 0) return { items: [], totalSize: 0, hasMore: false };
    const matching: { record: ResourceRecord; key: JsonValue[] }[] = [];
    const signature = orderSignature(query.orderBy);
    for (const name of candidates) {
      const record = this.state.resources.get(name);
      if (record === undefined) continue;
      const view = listingView(record);
      if (query.filter !== undefined && !evaluateFilter(query.filter, view)) continue;
      matching.push({ record, key: cachedSortKey(view, query.orderBy, signature) });
    }
    matching.sort((a, b) => compareSortKeys(a.key, b.key, query.orderBy));
    const after = query.after;
    const remaining = after === undefined ? matching : matching.filter((m) => compareSortKeys(m.key, after, query.orderBy) > 0);
    const page = remaining.slice(0, Math.max(0, query.pageSize));
    return {
      items: page.map((m) => toStored(m.record)),
      totalSize: matching.length,
      hasMore: remaining.length > page.length,
    };
  }
}
