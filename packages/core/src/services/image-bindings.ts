import { defineRouteModule } from '../api/resource-module.js';
import type { Binder } from '../kernel/plugin.js';
import {
  clockToken, configToken, egressHttpToken, idGeneratorToken, imageEnginesToken, safetyCheckerToken, storageToken, webhookOutboxToken,
} from '../kernel/tokens.js';
import { optional } from '../kernel/token.js';
import { imageRoutes } from '../images/image-api.js';
import { imagePurgeQueue, imageQueue, ImageService } from '../images/image-service.js';
import { referenceSafetyChecker } from '../images/reference-safety-checker.js';
import { defineQueueHandler } from '../workers/queue-handler.js';
import { imageServiceToken, queueHandlersToken, queueWakeupsToken } from './tokens.js';

/**
 * Binds image generation: the reference safety checker (`safetyCheckerToken`, from
 * `config.imageBlockedTerms` and `imageSensitiveTerms`; a plugin may override it), the {@link ImageService} over the engines the
 * runtime plugins contribute (with the webhook outbox when `webhooks()` is installed), its routes, and
 * the handlers of its durable queues (generation, and the purge after `config.imageRetentionMs`; run by
 * `queueWorkers()`).
 */
export function registerImages(binder: Binder): void {
  binder.bind({ token: safetyCheckerToken, deps: [configToken], factory: (config) =>
    referenceSafetyChecker({ blockedTerms: config.imageBlockedTerms, sensitiveTerms: config.imageSensitiveTerms }) });
  binder.bind({
    token: imageServiceToken,
    deps: [configToken, imageEnginesToken, safetyCheckerToken, storageToken, clockToken, idGeneratorToken, egressHttpToken, optional(webhookOutboxToken),
      queueWakeupsToken],
    factory: (config, engines, safety, storage, clock, ids, egress, webhooks, queueWakeups) =>
      new ImageService({ config, engines, safety, storage, clock, ids, egress, webhooks, queueWakeups }),
  });
  defineRouteModule({ collection: 'images', service: imageServiceToken, routes: imageRoutes }).register(binder);
  binder.contribute({
    token: queueHandlersToken,
    deps: [imageServiceToken],
    factory: (images) => defineQueueHandler({
      queue: imageQueue,
      leaseMs: 60_000,
      // An unavailable engine is retried soon: clients poll for at most two minutes.
      backoff: { initialMs: 500, maxMs: 10_000 },
      handle: (ctx, job) => images.runJob(ctx, job),
    }),
  });
  binder.contribute({
    token: queueHandlersToken,
    deps: [imageServiceToken],
    factory: (images) => defineQueueHandler({ queue: imagePurgeQueue, handle: (ctx, job) => images.purge(ctx, job) }),
  });
}
