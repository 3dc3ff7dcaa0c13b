import { Code, toGatewayError } from '../errors/index.js';
import { systemContext, type RequestContext } from '../contracts/request-context.js';
import type { GatewayLogger } from '../ports/logger.js';
import type { Storage } from '../ports/storage.js';
import type { ReplicaAdapters } from '../ports/provisioner.js';
import type { DeployedModel } from '../resources/deployed-models/deployed-model-schema.js';
import type { AddonReadiness } from '../resources/deployed-models/deployed-model-service.js';
import { addonCacheSize } from '../runtime/engine-args.js';
import { ReplicaAddonCache } from './addon-cache.js';
import type { Managed, TrackedReplica } from './reconciler-model.js';
import type { ModelFileSources } from './model-file-sources.js';

/** How long a failed add-on load waits before a pass tries it again on the same replica. */
const failedLoadRetryMs = 30_000;

interface ReplicaAddons {
  readonly deployment: string;
  readonly cache: ReplicaAddonCache;
  /** Deployed-model records whose add-on was loaded on this replica once (when deployed, or when it joined). */
  readonly deployed: Set<string>;
  /** Last failed load per record: its message and when to try again. */
  readonly failed: Map<string, { message: string; retryAt: number }>;
}

export interface AddonServingDependencies {
  readonly storage: Storage;
  readonly sources: ModelFileSources;
  readonly logger: GatewayLogger;
  /** The tracked replica of a deployment (the reconciler's registry). */
  replica(deployment: string, replicaId: string): TrackedReplica | undefined;
}

/**
 * LoRA add-ons on the replicas of deployments with `enableAddons`, through the provisioner's
 * {@link ReplicaAdapters}. Each replica has a {@link ReplicaAddonCache} of `numPeftDeviceCached` slots,
 * made on first use and seeded with what its engine already has loaded (a restarted gateway).
 *
 * - Deploying an add-on (a deployed-model record on the deployment) loads it on every ready replica, a
 *   replica that becomes ready later loads the deployment's add-ons too; the record is DEPLOYED once every
 *   ready replica loaded it, and carries the load's failure as its status otherwise ({@link reconcile}).
 * - A request for an add-on pins it on the replica it was routed to, loading it first when it was evicted
 *   ({@link use}): the request waits meanwhile and is not failed for it.
 * - Undeploying unloads it from every replica (once its last request there ends).
 */
export class AddonServing {
  private readonly replicas = new Map<string, Promise<ReplicaAddons | undefined>>();

  constructor(private readonly deps: AddonServingDependencies) {}

  /**
   * Pins add-on `model` loaded on a replica for one request; answers the function that unpins it, or
   * undefined when the replica's provisioner does not load add-ons (its engine resolves the name itself).
   * @throws GatewayError FAILED_PRECONDITION when the add-on cannot be loaded (a file missing or corrupt,
   *   the engine refused it); UNAVAILABLE when the replica cannot be reached; CANCELLED when the caller leaves.
   */
  async use(ctx: RequestContext, deployment: string, replicaId: string, model: string): Promise<(() => void) | undefined> {
    const addons = await this.addonsOf(ctx, deployment, replicaId);
    if (!addons) return undefined;
    return addons.cache.acquire(model, ctx.signal);
  }

  /** Loads and unloads of a replica's cache (for tests and diagnostics). */
  counts(replicaId: string): Promise<{ loads: number; unloads: number; loaded: string[] } | undefined> {
    return (this.replicas.get(replicaId) ?? Promise.resolve(undefined)).then((r) =>
      r ? { loads: r.cache.loads, unloads: r.cache.unloads, loaded: r.cache.names() } : undefined,
    );
  }

  /**
   * One reconciler pass over a deployment's add-ons: forgets replicas that are gone, unloads add-ons no
   * longer deployed, loads each deployed add-on on every ready replica that has not had it yet (in deploy
   * order, so when they outnumber the slots the most recent ones stay loaded), and answers each add-on
   * record's readiness for the deployed-model states.
   */
  async reconcile(ctx: RequestContext, m: Managed, baseModel: string, records: readonly DeployedModel[]): Promise<ReadonlyMap<string, AddonReadiness>> {
    for (const [replicaId, entry] of this.replicas) {
      if (!m.replicas.has(replicaId) && (await entry.catch(() => undefined))?.deployment === m.name) this.replicas.delete(replicaId);
    }
    const addons = records.filter((r) => r.model !== baseModel && r.model !== undefined && r.state !== 'UNDEPLOYING');
    const wanted = new Set(addons.map((r) => r.model as string));
    const readiness = new Map<string, AddonReadiness>();
    const ready = [...m.replicas.values()].filter((r) => r.handle.status().phase === 'ready' && !r.draining && !r.stopping);
    const outcomes = await Promise.all(ready.map((replica) => this.reconcileReplica(ctx, m.name, replica, addons, wanted)));
    for (const record of addons) {
      const failure = outcomes.map((o) => o.get(record.name as string)).find((f) => f !== undefined);
      const loaded = outcomes.every((o) => o.get(record.name as string) === null);
      readiness.set(record.name as string, failure ? { loaded: false, status: { code: 'FAILED_PRECONDITION', message: failure } } : { loaded });
    }
    return readiness;
  }

  /** Per record: null when loaded on this replica, a message when its load failed, absent when not tried. */
  private async reconcileReplica(
    ctx: RequestContext,
    deployment: string,
    replica: TrackedReplica,
    addons: readonly DeployedModel[],
    wanted: ReadonlySet<string>,
  ): Promise<Map<string, string | null>> {
    const out = new Map<string, string | null>();
    let entry: ReplicaAddons | undefined;
    try {
      entry = await this.addonsOf(ctx, deployment, replica.handle.replicaId);
    } catch (error) {
      this.deps.logger.warn({ err: String(error), replica: replica.handle.replicaId }, 'cannot read the add-ons of a replica');
      return out;
    }
    if (!entry) {
      for (const record of addons) out.set(record.name as string, null);
      return out;
    }
    const { cache } = entry;
    await Promise.all(cache.names().filter((name) => !wanted.has(name)).map((name) => cache.remove(name)));
    for (const known of [...entry.deployed]) if (!addons.some((r) => r.name === known)) entry.deployed.delete(known);
    for (const record of addons) {
      const name = record.name as string;
      if (entry.deployed.has(name)) {
        out.set(name, null);
        continue;
      }
      const failed = entry.failed.get(name);
      if (failed && Date.now() < failed.retryAt) {
        out.set(name, failed.message);
        continue;
      }
      try {
        const unpin = await cache.acquire(record.model as string);
        unpin();
        entry.deployed.add(name);
        entry.failed.delete(name);
        out.set(name, null);
        this.deps.logger.info({ deployment, replica: replica.handle.replicaId, model: record.model }, 'add-on loaded');
      } catch (error) {
        const failure = toGatewayError(error);
        const message = failure.code === Code.INTERNAL ? 'the add-on could not be loaded' : failure.message;
        entry.failed.set(name, { message, retryAt: Date.now() + failedLoadRetryMs });
        out.set(name, message);
        this.deps.logger.warn({ deployment, replica: replica.handle.replicaId, model: record.model, err: String(error) }, 'cannot load an add-on');
      }
    }
    return out;
  }

  private addonsOf(ctx: RequestContext, deployment: string, replicaId: string): Promise<ReplicaAddons | undefined> {
    let entry = this.replicas.get(replicaId);
    if (!entry) {
      entry = this.open(ctx, deployment, replicaId);
      this.replicas.set(replicaId, entry);
      // A replica that could not be read, or is not (yet) tracked, is tried again on its next use.
      const forget = () => void this.replicas.delete(replicaId);
      entry.then((opened) => opened ?? forget(), forget);
    }
    return entry;
  }

  private async open(ctx: RequestContext, deployment: string, replicaId: string): Promise<ReplicaAddons | undefined> {
    const tracked = this.deps.replica(deployment, replicaId);
    const adapters = tracked?.provisioner.adapters;
    if (!tracked || !adapters) return undefined;
    const cache = new ReplicaAddonCache(addonCacheSize(tracked.handle.spec), {
      load: (name) => this.load(adapters, replicaId, name),
      unload: (name) => adapters.unload(systemContext('addon-unload'), replicaId, name),
    });
    cache.adopt(await adapters.loaded(ctx, replicaId));
    return { deployment, cache, deployed: new Set(), failed: new Map() };
  }

  private async load(adapters: ReplicaAdapters, replicaId: string, name: string): Promise<void> {
    // Not the request's context: a load serves every request waiting for it, so one leaving does not abort it.
    const ctx = systemContext('addon-load');
    const model = (await this.deps.storage.resources.get(ctx, name))?.data;
    const source = model ? await this.deps.sources.sourceOf(ctx, name, model) : undefined;
    await adapters.load(ctx, replicaId, { name, ...(source ? { source } : {}) });
  }
}
