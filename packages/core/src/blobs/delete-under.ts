import type { RequestContext } from '../kernel/request-context.js';
import type { BlobStore } from '../ports/storage.js';

/**
 * Deletes every object whose key starts with `prefix` (a resource's files), except those `keep` holds on
 * to; answers how many were deleted.
 */
export async function deleteBlobsUnder(ctx: RequestContext, blobs: BlobStore, prefix: string, keep?: (key: string) => boolean): Promise<number> {
  let deleted = 0;
  for (const key of await blobs.list(ctx, prefix)) {
    if (keep?.(key) === true) continue;
    if (await blobs.delete(ctx, key)) deleted += 1;
  }
  return deleted;
}
