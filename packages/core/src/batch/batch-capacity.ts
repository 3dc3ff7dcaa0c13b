/**
 * Capacity for batch inference jobs (the PENDING step): which deployment a job's rows go to, scaling it
 * from zero, and temporary deployments for models that have none.
 *
 * - The job's model resolves as inference does (its default deployed-model record, else its oldest live
 *   deployment). That deployment is used when it serves the job's precision (a deployment without a
 *   precision serves any); else another live deployment of the model at that precision; else, only when
 *   the job asked for the precision itself, a temporary deployment at it (a defaulted precision keeps the
 *   model's deployment rather than starting new accelerators).
 * - A deployment at zero desired replicas is scaled to one through `DeploymentService.scale`, the path of
 *   a user's `:scale` (so the leader's reconciler sees it through the change feed, on any instance); the
 *   autoscaler takes it from there and scales it down once the job's traffic ends.
 * - A model with no deployment gets a temporary one, made from the model's defaults (precision, accelerator
 *   type and count) by `DeploymentService.create`. Temporary deployments are shared: one per (model,
 *   precision, add-ons enabled or not: fine-tuning jobs ask for `enableAddons`) in an account, held by the jobs using it and deleted when the last holder ends. The
 *   holders live in one record per model (`accounts/a/batchTemporaryDeployments/<model key>`) changed
 *   under the model's invariant lock, so two jobs starting at once join one deployment; a deletion is
 *   marked on the record before the deployment is deleted and unmarked after, so a crash in between is
 *   finished by the next release (exactly once).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { JsonObject } from '../contracts/json.js';
import type { RequestContext } from '../contracts/request-context.js';
import { Code, GatewayError, failedPrecondition, isGatewayError } from '../errors/index.js';
import { parseFilter } from '../listing/index.js';
import { parseOrderBy } from '../listing/order-by.js';
import { parseResourceName } from '../names/resource-name.js';
import type { ModelTarget } from '../ports/serving-directory.js';
import type { ResourceStore, Storage } from '../ports/storage.js';
import { batchInferenceJobTerminalStates } from '../resources/batch-inference-jobs/batch-inference-job-state-machine.js';
import type { BatchInferenceJob } from '../resources/batch-inference-jobs/batch-inference-job-schema.js';
import { reinforcementFineTuningJobStoppedStates } from '../resources/reinforcement-fine-tuning-jobs/reinforcement-fine-tuning-job-state-machine.js';
import { acceleratorTypeValues, isSpecifiedPrecision, specDefaultAcceleratorType } from '../resources/common/schema-parts.js';
import { deploymentFields } from '../resources/deployments/deployment-fields.js';
import { assertDeployableBaseModel } from '../resources/deployments/deployment-rules.js';
import type { Deployment } from '../resources/deployments/deployment-schema.js';
import type { DeploymentService } from '../resources/deployments/deployment-service.js';
import type { Model } from '../resources/models/model-schema.js';

/** The collection of the per-model records of temporary deployments. */
export const temporaryDeploymentsCollection = 'batchTemporaryDeployments';

/** One temporary deployment of a model: its precision, the jobs holding it, and whether it is being deleted. */
export interface TemporaryDeploymentEntry {
  readonly precision: string;
  /** True when the deployment enables add-ons (made for jobs that serve an add-on, e.g. a fine-tuning job's policy). */
  readonly addons?: boolean;
  readonly deployment: string;
  holders: string[];
  /** Set (with no holders) once the last holder released it: the deployment is deleted, then the entry removed. */
  releasing?: boolean;
}

/** The record of a model's temporary deployments. */
export interface TemporaryDeploymentsRecord {
  readonly name: string;
  readonly model: string;
  entries: TemporaryDeploymentEntry[];
}

/** Resolves a model as inference does (the serving directory's `resolve`, with the caller's rights). */
export type ResolveModel = (model: string) => Promise<ModelTarget>;

/** The job asking for capacity: a batch inference job, or a reinforcement fine-tuning job's rollouts (`model` its base). */
export type CapacityJob = Pick<BatchInferenceJob, 'name' | 'model' | 'precision'>;

/** What the job needs of the deployment beyond the model and precision. */
export interface CapacityNeeds {
  /** The deployment must enable add-ons (`enableAddons`): the job serves add-ons on it. */
  readonly addons?: boolean;
}

/** Where a job's rows go. */
export interface JobCapacity {
  readonly deployment: string;
  /** True when the deployment is a temporary one the job holds. */
  readonly temporary: boolean;
}

const gone: ReadonlySet<string> = new Set(['DELETING', 'DELETED']);
const notServing: ReadonlySet<string> = new Set(['FAILED', 'DELETING', 'DELETED']);
const byCreateTime = parseOrderBy(undefined, deploymentFields, 'create_time');
const byName = [{ declaration: { path: ['name'], type: 'string' }, descending: false }] as const;

/** True when `deployment` serves `precision` (one without a precision serves whatever the model runs at). */
export function servesPrecision(deployment: Pick<Deployment, 'precision'>, precision: string | undefined): boolean {
  return !isSpecifiedPrecision(deployment.precision) || !isSpecifiedPrecision(precision) || deployment.precision === precision;
}

function recordNameOf(model: string): string {
  const { accountId } = parseResourceName(model, 'models');
  return `accounts/${accountId}/${temporaryDeploymentsCollection}/${createHash('sha256').update(model).digest('hex').slice(0, 24)}`;
}

function lockKeyOf(model: string): string {
  return `batch-capacity:${model}`;
}

function isNotDeployed(error: unknown): boolean {
  return isGatewayError(error) && error.code === Code.NOT_FOUND && error.reason === 'NOT_DEPLOYED';
}

/** The records of an account's temporary deployments (one per model that has or had some; at most 1000 read). */
export async function temporaryDeploymentRecords(ctx: RequestContext, storage: Pick<Storage, 'resources'>, accountId: string): Promise<TemporaryDeploymentsRecord[]> {
  const { items } = await storage.resources.list(ctx, {
    parent: `accounts/${accountId}`, collection: temporaryDeploymentsCollection, pageSize: 1000, orderBy: byName,
  });
  return items.map((item) => item.data as unknown as TemporaryDeploymentsRecord);
}

const stoppedJobStates: ReadonlySet<string> = new Set([...batchInferenceJobTerminalStates, ...reinforcementFineTuningJobStoppedStates]);

/** True when the job `jobName` (batch or reinforcement fine-tuning) exists and has not stopped (it may still send rows). */
async function stillWorking(ctx: RequestContext, store: ResourceStore, jobName: string): Promise<boolean> {
  const job = (await store.get(ctx, jobName))?.data;
  return job !== undefined && !stoppedJobStates.has(typeof job.state === 'string' ? job.state : 'JOB_STATE_UNSPECIFIED');
}

function addonsMet(deployment: Pick<Deployment, 'enableAddons'>, needs: CapacityNeeds): boolean {
  return needs.addons !== true || deployment.enableAddons === true;
}

export class BatchCapacity {
  constructor(
    private readonly storage: Storage,
    private readonly deployments: DeploymentService,
  ) {}

  /**
   * The deployment `job`'s rows go to, joining (or creating the record of) a temporary deployment when
   * that is needed. Does not wait for replicas: see {@link ready}. `resolve` is the serving directory's, with
   * the job creator's rights; what is created or scaled is done with `ctx` (the worker's, as the autoscaler).
   * `precisionRequested` is true when the job's creator named the precision. With `needs.addons` only a
   * deployment that enables add-ons is used (else a temporary one that does).
   * @throws FAILED_PRECONDITION when the model cannot get a deployment (an add-on without a deployed base,
   *   a model that is not READY); the serving directory's errors otherwise.
   */
  async provide(ctx: RequestContext, resolve: ResolveModel, job: CapacityJob, precisionRequested: boolean, needs: CapacityNeeds = {}): Promise<JobCapacity> {
    const model = job.model ?? '';
    const jobName = job.name ?? '';
    const precision = job.precision;
    for (let round = 0; ; round += 1) {
      const chosen = await this.choose(ctx, resolve, model, precision, precisionRequested, needs);
      const joined = await this.join(ctx, model, jobName, precision ?? 'PRECISION_UNSPECIFIED', chosen, needs);
      if (joined) {
        if (joined.temporary) await this.ensureTemporary(ctx, model, joined.deployment, precision, needs);
        return joined;
      }
      // The deployment chosen was deleted in between (a temporary one released by its last holder): choose again.
      if (round >= 5) throw new GatewayError(Code.UNAVAILABLE, `no deployment of ${model} stayed available; retrying`, { reason: 'CAPACITY_CHANGED' });
    }
  }

  /** An existing deployment serving the model at the precision (undefined: a temporary one is needed). */
  private async choose(
    ctx: RequestContext, resolve: ResolveModel, model: string, precision: string | undefined, precisionRequested: boolean, needs: CapacityNeeds,
  ): Promise<string | undefined> {
    let resolved: string | undefined;
    try {
      resolved = (await resolve(model)).deployment;
    } catch (error) {
      if (!isNotDeployed(error)) throw error;
    }
    if (resolved !== undefined) {
      const deployment = await this.read(ctx, resolved);
      if (deployment && servesPrecision(deployment, precision) && addonsMet(deployment, needs)) return resolved;
    }
    const other = await this.liveDeploymentAt(ctx, model, precision, needs);
    if (other !== undefined) return other;
    return precisionRequested || needs.addons === true ? undefined : resolved;
  }

  private async liveDeploymentAt(ctx: RequestContext, model: string, precision: string | undefined, needs: CapacityNeeds): Promise<string | undefined> {
    const { accountId } = parseResourceName(model, 'models');
    const filter = parseFilter(`base_model = ${JSON.stringify(model)}`, deploymentFields);
    const result = await this.storage.resources.list(ctx, {
      parent: `accounts/${accountId}`, collection: 'deployments', ...(filter ? { filter } : {}), orderBy: byCreateTime, pageSize: 200,
    });
    const found = result.items.map((i) => i.data as Deployment).find((d) => !notServing.has(d.state ?? '') && servesPrecision(d, precision) && addonsMet(d, needs));
    return found?.name;
  }

  /**
   * Under the model's lock: a chosen deployment that is temporary gets the job as a holder; no deployment
   * chosen → the live temporary one at the precision (joined) or a new entry naming a new deployment.
   * Undefined when the chosen deployment is being deleted.
   */
  private async join(ctx: RequestContext, model: string, jobName: string, precision: string, chosen: string | undefined, needs: CapacityNeeds): Promise<JobCapacity | undefined> {
    const recordName = recordNameOf(model);
    return this.storage.transaction(ctx, async (tx) => {
      await tx.lock(ctx, lockKeyOf(model));
      const stored = await tx.resources.getForUpdate(ctx, recordName);
      const record: TemporaryDeploymentsRecord = stored
        ? (structuredClone(stored.data) as unknown as TemporaryDeploymentsRecord)
        : { name: recordName, model, entries: [] };
      const save = async () => {
        if (stored) await tx.resources.update(ctx, recordName, record as unknown as JsonObject, stored.etag);
        else await tx.resources.create(ctx, recordName, record as unknown as JsonObject);
      };
      let entry: TemporaryDeploymentEntry | undefined = chosen === undefined ? undefined : record.entries.find((e) => e.deployment === chosen);
      // A temporary deployment being deleted is never joined: the job gets a new one (below).
      if (entry?.releasing) {
        entry = undefined;
        chosen = undefined;
      }
      if (chosen !== undefined) {
        if (!entry) {
          const deployment = (await tx.resources.get(ctx, chosen))?.data as Deployment | undefined;
          return deployment && !gone.has(deployment.state ?? '') ? { deployment: chosen, temporary: false } : undefined;
        }
      } else {
        const addons = needs.addons === true;
        entry = record.entries.find((e) => !e.releasing && e.precision === precision && (e.addons === true) === addons);
        if (!entry) {
          const { accountId } = parseResourceName(model, 'models');
          entry = { precision, ...(addons ? { addons } : {}), deployment: `accounts/${accountId}/deployments/batch-${randomBytes(6).toString('hex')}`, holders: [] };
          record.entries.push(entry);
        }
      }
      if (!entry.holders.includes(jobName)) entry.holders.push(jobName);
      await save();
      return { deployment: entry.deployment, temporary: true };
    });
  }

  /** Creates the temporary deployment when it does not exist yet (idempotent: any holder may, after a crash). */
  private async ensureTemporary(ctx: RequestContext, model: string, deployment: string, precision: string | undefined, needs: CapacityNeeds): Promise<void> {
    if (await this.read(ctx, deployment)) return;
    const modelRecord = (await this.storage.resources.get(ctx, model))?.data as Model | undefined;
    if (!modelRecord) throw failedPrecondition(`model ${model} no longer exists`);
    try {
      assertDeployableBaseModel(modelRecord);
    } catch (error) {
      throw failedPrecondition(
        `model ${model} has no deployment and cannot get a temporary one: ${(error as Error).message}`, { reason: 'NO_CAPACITY' },
      );
    }
    const { accountId, id } = parseResourceName(deployment, 'deployments');
    const body: JsonObject = {
      baseModel: model,
      displayName: `Batch jobs: ${parseResourceName(model, 'models').id}`.slice(0, 63),
      description: 'Temporary deployment made by batch inference or fine-tuning jobs; deleted when the last job using it ends.',
      minReplicaCount: 0,
      maxReplicaCount: 1,
      ...(needs.addons === true ? { enableAddons: true } : {}),
      ...(isSpecifiedPrecision(precision) ? { precision } : {}),
    };
    // The spec's default accelerator type first; when it cannot run the precision, the first type that can.
    let refused: unknown;
    for (const acceleratorType of [undefined, ...acceleratorTypeValues.filter((t) => t !== 'ACCELERATOR_TYPE_UNSPECIFIED' && t !== specDefaultAcceleratorType)]) {
      try {
        await this.deployments.create(ctx, accountId, acceleratorType ? { ...body, acceleratorType } : body, { deploymentId: id });
        return;
      } catch (error) {
        if (isGatewayError(error) && error.code === Code.ALREADY_EXISTS) return;
        if (!(isGatewayError(error) && error.code === Code.INVALID_ARGUMENT)) throw error;
        refused ??= error;
      }
    }
    throw failedPrecondition(`model ${model} has no deployment and no temporary one can be made: ${(refused as Error).message}`, { reason: 'NO_CAPACITY' });
  }

  /**
   * Whether `deployment` has a ready replica: a deployment at zero desired replicas is scaled to one
   * (the `:scale` path). FAILED_PRECONDITION when it failed or is being deleted.
   */
  async ready(ctx: RequestContext, name: string): Promise<boolean> {
    const deployment = await this.read(ctx, name);
    if (!deployment || notServing.has(deployment.state ?? '')) {
      const status = deployment?.status?.message;
      throw failedPrecondition(`deployment ${name} is ${deployment?.state ?? 'gone'}${status ? `: ${status}` : ''}`, { reason: 'DEPLOYMENT_NOT_SERVING' });
    }
    await this.keep(ctx, name, deployment);
    return (deployment.replicaStats?.readyReplicaCount ?? 0) > 0;
  }

  /** Scales `name` from zero to one replica when its desired count is zero (a running job keeps its capacity). */
  async keep(ctx: RequestContext, name: string, known?: Deployment): Promise<void> {
    const deployment = known ?? (await this.read(ctx, name));
    if (!deployment || deployment.desiredReplicaCount !== 0 || gone.has(deployment.state ?? '')) return;
    try {
      await this.deployments.scale(ctx, name, Math.max(1, deployment.minReplicaCount ?? 0));
    } catch (error) {
      if (!isGatewayError(error)) throw error;
    }
  }

  /**
   * The job ended (or is gone): it stops holding temporary deployments of its account; those left with no
   * holder are deleted. Holders that are gone or stopped are dropped on the way. Idempotent, and finishes
   * a deletion an earlier call began (after a crash).
   */
  async release(ctx: RequestContext, jobName: string): Promise<void> {
    const accountId = jobName.split('/')[1] ?? '';
    for (const record of await temporaryDeploymentRecords(ctx, this.storage, accountId)) {
      if (!record.entries.some((e) => e.releasing || e.holders.length > 0)) continue;
      const toDelete = await this.dropHolder(ctx, record.model, record.name, jobName);
      for (const deployment of toDelete) {
        await this.deleteDeployment(ctx, deployment);
        await this.forgetEntry(ctx, record.model, record.name, deployment);
      }
    }
  }

  /** Under the model's lock: removes `jobName` (and stopped holders) and marks entries left without holders. Answers the deployments to delete. */
  private async dropHolder(ctx: RequestContext, model: string, recordName: string, jobName: string): Promise<string[]> {
    return this.storage.transaction(ctx, async (tx) => {
      await tx.lock(ctx, lockKeyOf(model));
      const stored = await tx.resources.getForUpdate(ctx, recordName);
      if (!stored) return [];
      const record = structuredClone(stored.data) as unknown as TemporaryDeploymentsRecord;
      let changed = false;
      for (const entry of record.entries) {
        const kept: string[] = [];
        for (const holder of entry.holders) {
          if (holder !== jobName && (await stillWorking(ctx, tx.resources, holder))) kept.push(holder);
        }
        if (kept.length !== entry.holders.length) changed = true;
        entry.holders = kept;
        if (kept.length === 0 && !entry.releasing) {
          entry.releasing = true;
          changed = true;
        }
      }
      if (changed) await tx.resources.update(ctx, recordName, record as unknown as JsonObject, stored.etag);
      return record.entries.filter((e) => e.releasing).map((e) => e.deployment);
    });
  }

  private async deleteDeployment(ctx: RequestContext, name: string): Promise<void> {
    try {
      await this.deployments.delete(ctx, name, { ignoreChecks: true });
    } catch (error) {
      if (!(isGatewayError(error) && error.code === Code.NOT_FOUND)) throw error;
    }
  }

  private async forgetEntry(ctx: RequestContext, model: string, recordName: string, deployment: string): Promise<void> {
    await this.storage.transaction(ctx, async (tx) => {
      await tx.lock(ctx, lockKeyOf(model));
      const stored = await tx.resources.getForUpdate(ctx, recordName);
      if (!stored) return;
      const record = structuredClone(stored.data) as unknown as TemporaryDeploymentsRecord;
      record.entries = record.entries.filter((e) => !(e.deployment === deployment && e.releasing));
      if (record.entries.length === 0) await tx.resources.delete(ctx, recordName, stored.etag);
      else await tx.resources.update(ctx, recordName, record as unknown as JsonObject, stored.etag);
    });
  }

  private async read(ctx: RequestContext, name: string): Promise<Deployment | undefined> {
    return (await this.storage.resources.get(ctx, name))?.data as Deployment | undefined;
  }
}
