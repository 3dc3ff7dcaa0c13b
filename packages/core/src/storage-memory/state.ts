import type { BlobMetadata, OutboxEvent } from '../ports/index.js';
import { ResourceIndexes } from './indexes.js';
import type { JobRecord, KvRecord, ResourceRecord } from './records.js';

/** Everything the store holds. Plain maps: one process, no persistence. */
export class MemoryState {
  readonly resources = new Map<string, ResourceRecord>();
  readonly indexes = new ResourceIndexes((name) => this.resources.get(name));
  readonly blobs = new Map<string, BlobMetadata & { readonly bytes: Uint8Array }>();
  readonly jobs = new Map<string, JobRecord>();
  /** `queue\u0000dedupeKey` → job id. */
  readonly dedupe = new Map<string, string>();
  readonly events: OutboxEvent[] = [];
  readonly positions = new Map<string, number>();
  readonly kv = new Map<string, KvRecord>();
  /** Global, so an etag is never reused, not even by a resource re-created under the same name. */
  version = 0;
  jobOrder = 0;
  sequence = 0;

  constructor(readonly now: () => number) {}
}
