/**
 * Checkpoints as add-on models: the policy being trained, served to the rollouts, and the job's output
 * model. Both are made by the model-files path a user's upload takes (announce, store, `:validateUpload`),
 * so a checkpoint is checked like any add-on before a replica loads it, and the policy is deployed on the
 * job's deployment as a user deploys an add-on (`enableAddons`).
 */
import { createHash } from 'node:crypto';
import type { RequestContext } from '../contracts/request-context.js';
import { Code, failedPrecondition, isGatewayError } from '../errors/index.js';
import { parseResourceName } from '../names/resource-name.js';
import { checkpointFileKey, type TrainerCheckpoint } from '../ports/trainer.js';
import type { Storage } from '../ports/storage.js';
import type { DeployedModelService } from '../resources/deployed-models/deployed-model-service.js';
import type { ModelFileService } from '../resources/models/model-file-service.js';
import { modelFileKey } from '../resources/models/model-files.js';
import type { Model } from '../resources/models/model-schema.js';
import type { ModelService } from '../resources/models/model-service.js';

/** What a job makes an add-on model from. */
export interface AddonFromCheckpoint {
  /** The job's resource name. */
  readonly job: string;
  readonly baseModel: string;
  readonly checkpoint: TrainerCheckpoint;
}

/** How the loop turns checkpoints into models (the gateway's services; a test double in unit tests). */
export interface RftModels {
  /**
   * Serves `checkpoint` on `deployment` as an add-on and answers the name rollouts send as `model`
   * (`<add-on>#<deployment>`). Idempotent per (job, step). Removes the job's earlier policy add-ons.
   */
  servePolicy(ctx: RequestContext, input: AddonFromCheckpoint & { readonly deployment: string }): Promise<{ model: string; addon: string }>;
  /** Removes every policy add-on of the job (undeployed, then deleted). */
  retirePolicies(ctx: RequestContext, job: string, except?: string): Promise<void>;
  /** Makes `name` a READY HUB_PEFT_ADDON of the checkpoint's files with `fineTuningJob` = the job. Idempotent. */
  createOutputModel(ctx: RequestContext, name: string, input: AddonFromCheckpoint): Promise<void>;
}

const byName = [{ declaration: { path: ['name'], type: 'string' }, descending: false }] as const;

/** The id prefix of a job's policy add-ons: `rft-<10 hex of the job's name>-`, then `s<step>`. */
export function policyIdPrefix(job: string): string {
  return `rft-${createHash('sha256').update(job).digest('hex').slice(0, 10)}-`;
}

export function policyModelName(job: string, step: number): string {
  const { accountId } = parseResourceName(job, 'reinforcementFineTuningJobs');
  return `accounts/${accountId}/models/${policyIdPrefix(job)}s${step}`;
}

/** {@link RftModels} over the gateway's model, model-file and deployed-model services. */
export class ServiceRftModels implements RftModels {
  constructor(
    private readonly storage: Storage,
    private readonly models: ModelService,
    private readonly modelFiles: ModelFileService,
    private readonly deployedModels: DeployedModelService,
  ) {}

  async servePolicy(ctx: RequestContext, input: AddonFromCheckpoint & { deployment: string }): Promise<{ model: string; addon: string }> {
    const addon = policyModelName(input.job, input.checkpoint.step);
    const { id } = parseResourceName(input.job, 'reinforcementFineTuningJobs');
    await this.materialize(ctx, addon, input, {
      displayName: `${id} policy, step ${input.checkpoint.step}`.slice(0, 63),
      description: `The policy of reinforcement fine-tuning job ${input.job} after training step ${input.checkpoint.step}; removed by the job.`,
    });
    const { accountId } = parseResourceName(addon, 'models');
    const existing = await this.deployedModels.recordsOf(ctx, accountId, { model: addon, deployment: input.deployment });
    if (existing.length === 0) {
      try {
        await this.deployedModels.create(ctx, accountId, { model: addon, deployment: input.deployment });
      } catch (error) {
        if (!(isGatewayError(error) && error.code === Code.ALREADY_EXISTS)) throw error;
      }
    }
    await this.retirePolicies(ctx, input.job, addon);
    return { model: `${addon}#${input.deployment}`, addon };
  }

  async retirePolicies(ctx: RequestContext, job: string, except?: string): Promise<void> {
    const { accountId } = parseResourceName(job, 'reinforcementFineTuningJobs');
    const prefix = `accounts/${accountId}/models/${policyIdPrefix(job)}`;
    for (const name of await this.namesFrom(ctx, accountId, prefix)) {
      if (name === except) continue;
      for (const record of await this.deployedModels.recordsOf(ctx, accountId, { model: name })) {
        await this.deployedModels.delete(ctx, record.name ?? '').catch((error: unknown) => {
          if (!(isGatewayError(error) && error.code === Code.NOT_FOUND)) throw error;
        });
      }
      await this.models.delete(ctx, name).catch((error: unknown) => {
        if (!(isGatewayError(error) && error.code === Code.NOT_FOUND)) throw error;
      });
    }
  }

  /** Names of the account's models that start with `prefix` (keyset pages over the names from the prefix on). */
  private async namesFrom(ctx: RequestContext, accountId: string, prefix: string): Promise<string[]> {
    const names: string[] = [];
    let after = prefix;
    for (;;) {
      const page = await this.storage.resources.list(ctx, { parent: `accounts/${accountId}`, collection: 'models', orderBy: byName, pageSize: 100, after: [after] });
      for (const item of page.items) {
        const name = String(item.data.name ?? '');
        if (!name.startsWith(prefix)) return names;
        names.push(name);
        after = name;
      }
      if (!page.hasMore) return names;
    }
  }

  async createOutputModel(ctx: RequestContext, name: string, input: AddonFromCheckpoint): Promise<void> {
    const { id } = parseResourceName(input.job, 'reinforcementFineTuningJobs');
    await this.materialize(ctx, name, input, {
      displayName: `${id} (reinforcement fine-tuned)`.slice(0, 63),
      description: `Trained by reinforcement fine-tuning job ${input.job} (${input.checkpoint.step} steps) on ${input.baseModel}.`,
    });
    await this.models.resources.mutate(ctx, name, (model) => ({ ...model, fineTuningJob: input.job }));
  }

  /** Creates `name` (when absent) from the checkpoint's files and validates it to READY (when not yet). */
  private async materialize(ctx: RequestContext, name: string, input: AddonFromCheckpoint, labels: { displayName: string; description: string }): Promise<void> {
    let model = (await this.storage.resources.get(ctx, name))?.data as Model | undefined;
    if (model?.state === 'READY') return;
    const config = await this.adapterConfig(ctx, input.checkpoint);
    if (!model) {
      const { accountId, id } = parseResourceName(name, 'models');
      try {
        model = await this.models.create(ctx, accountId, {
          kind: 'HUB_PEFT_ADDON', ...labels,
          peftDetails: { baseModel: input.baseModel, r: config.r, targetModules: config.targetModules },
        }, id);
      } catch (error) {
        if (!(isGatewayError(error) && error.code === Code.ALREADY_EXISTS)) throw error;
      }
    }
    const sizes = Object.fromEntries(input.checkpoint.files.map((f) => [f.path, String(f.sizeBytes)]));
    await this.modelFiles.getUploadEndpoint(ctx, name, { filenameToSize: sizes });
    for (const file of input.checkpoint.files) {
      const source = await this.storage.blobs.getStream(ctx, checkpointFileKey(input.checkpoint, file.path));
      if (!source) throw failedPrecondition(`checkpoint ${input.checkpoint.step} of ${input.job} lost its file ${file.path}`, { reason: 'CHECKPOINT_MISSING' });
      await this.storage.blobs.putStream(ctx, modelFileKey(name, file.path), source.body, 'application/octet-stream');
    }
    await this.modelFiles.validateUpload(ctx, name);
  }

  /** The checkpoint's `adapter_config.json`: its rank and target modules (the add-on's `peftDetails`). */
  private async adapterConfig(ctx: RequestContext, checkpoint: TrainerCheckpoint): Promise<{ r: number; targetModules: string[] }> {
    const stored = await this.storage.blobs.get(ctx, checkpointFileKey(checkpoint, 'adapter_config.json'));
    let parsed: unknown;
    try {
      parsed = stored ? JSON.parse(Buffer.from(stored.bytes).toString('utf8')) : undefined;
    } catch {
      parsed = undefined;
    }
    const config = parsed as { r?: unknown; target_modules?: unknown } | undefined;
    const modules = config?.target_modules;
    if (typeof config?.r !== 'number' || !Array.isArray(modules) || !modules.every((m) => typeof m === 'string')) {
      throw failedPrecondition(`checkpoint ${checkpoint.step} has no adapter_config.json with "r" and "target_modules"`, { reason: 'CHECKPOINT_INVALID' });
    }
    return { r: config.r, targetModules: modules as string[] };
  }
}
