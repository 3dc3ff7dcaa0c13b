import type { RequestContext } from '../../kernel/request-context.js';
import type { JsonObject } from '../../ports/json.js';
import type { ResourceEnvironment } from '../common/resource-environment.js';
import { ResourceService, type ListPage, type ListParams, type PreconditionOptions } from '../common/resource-service.js';
import type { GatewaySecrets } from '../common/secrets.js';
import { batchInferenceJobDefinition } from './batch-inference-job-definition.js';

/**
 * Batch inference jobs: run a model over an input dataset into an output dataset. Create, get, list
 * and delete; a job is never edited (no update in the API).
 */
export class BatchInferenceJobService {
  readonly resources: ResourceService;

  constructor(env: ResourceEnvironment, secrets: GatewaySecrets) {
    this.resources = new ResourceService(batchInferenceJobDefinition, env, secrets);
  }

  /**
   * Creates a job in JOB_STATE_CREATING. Throws PERMISSION_DENIED, INVALID_ARGUMENT (schema, missing
   * or dangling references, another account), FAILED_PRECONDITION (continuing a running job),
   * ALREADY_EXISTS.
   */
  create(ctx: RequestContext, accountId: string, body: unknown, batchInferenceJobId?: string): Promise<JsonObject> {
    return this.resources.create(ctx, accountId, body, batchInferenceJobId === undefined ? {} : { id: batchInferenceJobId });
  }

  get(ctx: RequestContext, name: string, readMask?: string): Promise<JsonObject> {
    return this.resources.get(ctx, name, readMask);
  }

  list(ctx: RequestContext, accountId: string, params: ListParams): Promise<ListPage> {
    return this.resources.list(ctx, accountId, params);
  }

  /** Deletes the job record in any state (see the state machine). NOT_FOUND when absent. */
  delete(ctx: RequestContext, name: string, options: PreconditionOptions = {}): Promise<void> {
    return this.resources.delete(ctx, name, options);
  }
}
