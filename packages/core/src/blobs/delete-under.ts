import type { RequestContext } from '../kernel/request-context.js';
import type { BlobStore } from '../ports/storage.js';

/** Deletes every object whose key starts with `prefix` (a resource's files); answers how many were deleted. */
export async function deleteBlobsUnder(ctx: RequestContext, blobs: BlobStore, prefix: string): Promise<number> {
  let deleted = 0;
  for (const key of await blobs.list(ctx, prefix)) {
    if (await blobs.delete(ctx, key)) deleted += 1;
  }
  return deleted;
}
