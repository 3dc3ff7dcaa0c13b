import type { RequestContext } from '../contracts/request-context.js';

/** A ready replica chosen for one request. */
export interface ReplicaLease {
  readonly replicaId: string;
  readonly deployment: string;
  /** Base URL of the replica's OpenAI-compatible server. */
  readonly endpoint: string;
  /** The model id the replica's engine serves (the upstream request's `model`). */
  readonly servedModelId: string;
  /** Must be called once when the upstream exchange ends (success, error or client disconnect). */
  release(): void;
}

/** Where an inference request's `model` points: `accounts/a/models/m` or `accounts/a/models/m#accounts/a/deployments/d`. */
export interface ModelTarget {
  readonly accountId: string;
  readonly model: string;
  readonly deployment: string;
  /** Name of the deployed-model record used, when the model is an add-on or a routed base model. */
  readonly deployedModel?: string;
  /**
   * How the deployment's replicas run the model, when `resolve` was asked for it (`{ facts: true }`).
   * Without facts the Responses API treats the context length as unknown and refuses image input.
   */
  readonly facts?: ModelFacts;
}

/** What a model turn needs to know of a resolved model, as the deployment's replicas run it. */
export interface ModelFacts {
  /** Tokens the replicas hold in context (prompt and output): the engine's own limit. */
  readonly contextLength: number;
  /** True when the model takes image input (its `supportsImageInput`, else its base model's). */
  readonly supportsImageInput: boolean;
}

export interface ResolveOptions {
  /**
   * Also answer the target's {@link ModelFacts} (the Responses API fits conversations and checks images
   * with them). May cost a read (an add-on's base model), so routing alone leaves it off.
   */
  readonly facts?: boolean;
}

/**
 * What inference routing needs from the serving layer: resolve a model to a deployment, and lease a
 * ready replica of it. Bound by the deployment reconciler (runtime layer).
 *
 * Codes: NOT_FOUND (no such model or deployment, or the model is not deployed), FAILED_PRECONDITION (the
 * deployment does not serve traffic: FAILED, DELETED), UNAVAILABLE (no replica became ready within the
 * wait; the hold queue is full), CANCELLED (the caller went away while waiting).
 */
export interface ServingDirectory {
  resolve(ctx: RequestContext, model: string, options?: ResolveOptions): Promise<ModelTarget>;
  /**
   * A ready replica of the deployment: least outstanding requests first, or sticky on `affinityKey` when
   * the deployment enables session affinity. A deployment at zero replicas is asked to scale up and the
   * call waits (bounded queue, bounded time) for a replica instead of failing at once.
   */
  acquire(ctx: RequestContext, target: ModelTarget, options?: { affinityKey?: string }): Promise<ReplicaLease>;
}
