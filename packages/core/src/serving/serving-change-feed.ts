import type { GatewayLogger } from '../ports/logger.js';
import type { Outbox } from '../ports/storage.js';
import type { DeploymentService } from '../resources/deployments/deployment-service.js';
import type { DeployedModelService } from '../resources/deployed-models/deployed-model-service.js';
import { systemContext } from '../contracts/request-context.js';

/** Outbox topic of deployment and deployed-model changes, and the leader's consumer name. */
export const servingChangesTopic = 'berth.serving.changes';
export const servingChangesConsumer = 'deployment-reconciler';

/**
 * Every instance publishes each change of a deployment or deployed model to the outbox, so the instance
 * that runs the reconciler (the leader) learns about changes made through any instance.
 * @returns a function that stops publishing.
 */
export function publishServingChanges(services: { readonly deployments: DeploymentService; readonly deployedModels: DeployedModelService }, outbox: Outbox, logger: GatewayLogger): () => void {
  const publish = (deployment: string) =>
    outbox.publish(systemContext('serving-change'), servingChangesTopic, { deployment }).catch((error: unknown) => {
      logger.warn({ err: String(error), deployment }, 'could not publish a serving change; the leader sees it at its next full pass');
    });
  const offDeployments = services.deployments.addObserver({ changed: (_ctx, change) => publish(change.name) });
  const offRecords = services.deployedModels.addObserver((_ctx, { record }) => {
    if (typeof record.deployment === 'string') void publish(record.deployment);
  });
  return () => {
    offDeployments();
    offRecords();
  };
}

/**
 * On the leader: reads the change feed and asks the reconciler to look at each changed deployment,
 * acknowledging what it handed over. Polls every `intervalMs`; passes never overlap.
 */
export class ServingChangeConsumer {
  private timer: ReturnType<typeof setInterval> | undefined;
  private running: Promise<void> = Promise.resolve();
  private nextPruneMs = 0;

  /**
   * @param retentionMs the leader also removes outbox events older than this (default 7 days), checking
   *   at most once an hour, so the feed does not grow without bound.
   */
  constructor(
    private readonly outbox: Outbox,
    private readonly reconcileSoon: (deployment: string) => void,
    private readonly logger: GatewayLogger,
    private readonly retentionMs = 7 * 24 * 3600_000,
    private readonly now: () => number = Date.now,
  ) {}

  start(intervalMs: number): void {
    void this.poll();
    this.timer = setInterval(() => void this.poll(), intervalMs);
    this.timer.unref?.();
  }

  /** One pass over the pending changes (exposed for tests). */
  poll(): Promise<void> {
    this.running = this.running.then(() => this.drain()).catch((error: unknown) => {
      this.logger.warn({ err: String(error) }, 'reading the serving change feed failed');
    });
    return this.running;
  }

  private async drain(): Promise<void> {
    const ctx = systemContext('serving-changes');
    if (this.now() >= this.nextPruneMs) {
      this.nextPruneMs = this.now() + 3600_000;
      const removed = await this.outbox.prune(ctx, new Date(this.now() - this.retentionMs));
      if (removed > 0) this.logger.debug({ removed }, 'pruned old outbox events');
    }
    for (;;) {
      const events = await this.outbox.poll(ctx, servingChangesConsumer, 200);
      if (events.length === 0) return;
      for (const event of events) {
        const deployment = (event.payload as { deployment?: unknown } | null)?.deployment;
        if (event.topic === servingChangesTopic && typeof deployment === 'string') this.reconcileSoon(deployment);
      }
      await this.outbox.ack(ctx, servingChangesConsumer, events[events.length - 1]!.sequence);
    }
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }
}
