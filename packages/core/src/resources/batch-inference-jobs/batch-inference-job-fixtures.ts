import type { RequestContext } from '../../kernel/request-context.js';
import { systemClock } from '../../ports/clock.js';
import { randomIdGenerator } from '../../ports/id-generator.js';
import type { Storage } from '../../ports/storage.js';
import { ResourceEnvironment } from '../common/resource-environment.js';
import { GatewaySecrets } from '../common/secrets.js';
import { BatchInferenceJobService } from './batch-inference-job-service.js';

/** A batch inference job service over `storage`, with its page-token secret loaded (tests). */
export async function batchInferenceJobServiceOver(storage: Storage, ctx: RequestContext): Promise<BatchInferenceJobService> {
  const env = new ResourceEnvironment(storage, systemClock, randomIdGenerator);
  const secrets = new GatewaySecrets('test-secret');
  await secrets.load(ctx, storage.kv);
  return new BatchInferenceJobService(env, secrets);
}
