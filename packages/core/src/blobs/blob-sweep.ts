import type { RequestContext } from '../kernel/request-context.js';
import type { BlobStore, ResourceStore } from '../ports/storage.js';

/** Which resource owns the blobs under a prefix. */
export interface BlobOwnerRule {
  /** Keys this rule looks at, e.g. `models/`. */
  readonly prefix: string;
  /** The resource a key belongs to (`models/acme/m/config.json` → `accounts/acme/models/m`); undefined for a key it does not own. */
  ownerOf(key: string): string | undefined;
}

export interface BlobSweepBounds {
  /** Only objects written before this are removed (an upload in flight is never swept). */
  readonly olderThan: Date;
  /** Most orphaned objects one run deletes; the rest wait for the next run. */
  readonly maxDeletes: number;
}

export interface BlobSweepResult {
  /** Objects deleted because the resource that owned them is gone. */
  readonly orphansDeleted: number;
  /** What unfinished writes left behind, removed by the store (`BlobStore.sweepAbandonedWrites`). */
  readonly abandonedWrites: number;
  /** True when the run stopped at `maxDeletes` with orphans left. */
  readonly more: boolean;
}

/**
 * One bounded sweep: deletes the objects under each rule's prefix whose owning resource no longer exists
 * (a deleted model's or dataset's files that its delete did not finish removing) and that were written
 * before `olderThan`, at most `maxDeletes` of them; then lets the store remove what unfinished writes left
 * (aborted or superseded uploads' temporary files and chunks). Each owner is looked up once per run.
 */
export async function sweepOrphanBlobs(
  ctx: RequestContext,
  blobs: BlobStore,
  resources: ResourceStore,
  rules: readonly BlobOwnerRule[],
  bounds: BlobSweepBounds,
): Promise<BlobSweepResult> {
  const owners = new Map<string, boolean>();
  let orphansDeleted = 0;
  let more = false;
  sweep: for (const rule of rules) {
    for (const key of await blobs.list(ctx, rule.prefix)) {
      const owner = rule.ownerOf(key);
      if (owner === undefined) continue;
      let exists = owners.get(owner);
      if (exists === undefined) {
        exists = (await resources.get(ctx, owner)) !== undefined;
        owners.set(owner, exists);
      }
      if (exists) continue;
      const head = await blobs.head(ctx, key);
      if (!head || Date.parse(head.createTime) >= bounds.olderThan.getTime()) continue;
      if (orphansDeleted >= bounds.maxDeletes) {
        more = true;
        break sweep;
      }
      if (await blobs.delete(ctx, key)) orphansDeleted += 1;
    }
  }
  const abandonedWrites = (await blobs.sweepAbandonedWrites?.(ctx, bounds.olderThan)) ?? 0;
  return { orphansDeleted, abandonedWrites, more };
}
