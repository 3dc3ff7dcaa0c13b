import { Code, isGatewayError } from '../../errors/index.js';
import type { RequestContext } from '../../kernel/request-context.js';
import type { ResourceStore } from '../../ports/storage.js';
import { deleteBlobsUnder } from '../../blobs/delete-under.js';
import type { ResourceEnvironment } from './resource-environment.js';
import type { PreconditionOptions } from './resource-service.js';

/** The files `:getUploadEndpoint` announced for a resource's upload in progress, with their sizes. */
export interface UploadPlan {
  readonly files: Readonly<Record<string, number>>;
}

/**
 * The record of a resource's upload in progress (a model's or a dataset's): an internal record of the
 * resource store under the resource, `<resource>/uploadPlans/current`, in a collection no route serves
 * or lists. Being a resource record (not a key-value entry), it is reachable through a storage
 * transaction on every storage, so {@link mergeUploadPlan} changes it under the resource's row lock.
 */
export function uploadPlanName(resourceName: string): string {
  return `${resourceName}/uploadPlans/current`;
}

/** The announced files of a resource's upload in progress, or undefined when none is. */
export async function readUploadPlan(ctx: RequestContext, resources: ResourceStore, resourceName: string): Promise<UploadPlan | undefined> {
  return (await resources.get(ctx, uploadPlanName(resourceName)))?.data as UploadPlan | undefined;
}

/**
 * Adds `files` to the resource's plan (a file announced again takes its new size) and answers the merged
 * plan, after `check` (which may throw to refuse it) accepted it. Call it inside the transaction that
 * holds the resource's row (`ResourceService.mutate`, with its transaction's context): concurrent
 * announcements of one resource then run one after another, each merging what the previous ones wrote.
 * Outside such a transaction two concurrent merges could each miss the other's files.
 */
export async function mergeUploadPlan(
  txCtx: RequestContext,
  resources: ResourceStore,
  resourceName: string,
  files: Readonly<Record<string, number>>,
  check: (merged: UploadPlan) => void = () => {},
): Promise<UploadPlan> {
  const name = uploadPlanName(resourceName);
  const previous = await resources.get(txCtx, name);
  const plan: UploadPlan = { files: { ...((previous?.data as UploadPlan | undefined)?.files ?? {}), ...files } };
  check(plan);
  if (previous) await resources.update(txCtx, name, { files: { ...plan.files } }, previous.etag);
  else await resources.create(txCtx, name, { files: { ...plan.files } });
  return plan;
}

/** Forgets a resource's upload plan (none is fine). */
export async function deleteUploadPlan(ctx: RequestContext, resources: ResourceStore, resourceName: string): Promise<void> {
  try {
    await resources.delete(ctx, uploadPlanName(resourceName));
  } catch (error) {
    if (!isGatewayError(error) || error.code !== Code.NOT_FOUND) throw error;
  }
}

/**
 * Deletes a resource whose files were uploaded: authorizes the delete, removes the resource and its upload
 * plan in one storage transaction (a crash between the two cannot leave the plan to a new resource of the
 * same name, which would then accept files its owner never announced), then deletes its files under
 * `filesPrefix` (files a crash leaves behind are the orphan sweep's), so a new resource of the name starts
 * empty. NOT_FOUND when the resource is absent; ABORTED on a stale etag.
 */
export async function deleteUploadedResource(
  ctx: RequestContext,
  resources: {
    readonly env: ResourceEnvironment;
    authorizeName(ctx: RequestContext, name: string, verb: 'delete'): unknown;
    remove(ctx: RequestContext, name: string, options?: PreconditionOptions): Promise<void>;
  },
  name: string,
  filesPrefix: string,
  options: PreconditionOptions = {},
): Promise<void> {
  resources.authorizeName(ctx, name, 'delete');
  await resources.env.storage.transaction(ctx, async (_tx, txCtx) => {
    await resources.remove(txCtx, name, options);
    await deleteUploadPlan(txCtx, resources.env.storage.resources, name);
  });
  await deleteBlobsUnder(ctx, resources.env.storage.blobs, filesPrefix);
}
