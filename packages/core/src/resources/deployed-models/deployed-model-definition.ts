import { alreadyExists, invalidArgument } from '../../errors/index.js';
import type { RequestContext } from '../../kernel/request-context.js';
import { parseFilter } from '../../listing/index.js';
import { parseOrderBy } from '../../listing/order-by.js';
import { parseResourceName } from '../../names/resource-name.js';
import type { ResourceDefinition } from '../common/resource-definition.js';
import { storedOf, type ResourceEnvironment } from '../common/resource-environment.js';
import type { Deployment } from '../deployments/deployment-schema.js';
import type { Model } from '../models/model-schema.js';
import { deployedModelFields } from './deployed-model-fields.js';
import { assertDeployable } from './deployed-model-rules.js';
import { deployedModelOutputOnly, deployedModelSchema, type DeployedModel } from './deployed-model-schema.js';
import { deployedModelStateMachine } from './deployed-model-state-machine.js';

const oldestFirst = parseOrderBy(undefined, deployedModelFields, 'create_time');

/** Most records one model or deployment is expected to have; lookups read at most this many. */
export const maxDeployedModelsPerLookup = 1000;

/**
 * Deployed-model records matching `model` and/or `deployment` in an account, oldest first (system read: the
 * caller authorizes).
 */
export async function findDeployedModels(
  ctx: RequestContext,
  env: ResourceEnvironment,
  accountId: string,
  match: { readonly model?: string; readonly deployment?: string },
): Promise<DeployedModel[]> {
  const clauses = [
    ...(match.model !== undefined ? [`model = ${JSON.stringify(match.model)}`] : []),
    ...(match.deployment !== undefined ? [`deployment = ${JSON.stringify(match.deployment)}`] : []),
  ];
  const filter = clauses.length > 0 ? parseFilter(clauses.join(' AND '), deployedModelFields) : undefined;
  const result = await env.storage.resources.list(ctx, {
    parent: `accounts/${accountId}`,
    collection: 'deployedModels',
    ...(filter ? { filter } : {}),
    orderBy: oldestFirst,
    pageSize: maxDeployedModelsPerLookup,
  });
  return result.items.map((item) => storedOf<DeployedModel>(item).data);
}

/**
 * Checks a new record's references and fills the server-set fields: the model and the deployment must exist
 * in the record's account (INVALID_ARGUMENT), the pair must be deployable ({@link assertDeployable}) and not
 * deployed already (ALREADY_EXISTS); `default` is true for the model's first record.
 */
export async function prepareDeployedModel(ctx: RequestContext, data: DeployedModel, env: ResourceEnvironment): Promise<void> {
  const { accountId } = parseResourceName(data.name, 'deployedModels');
  if (data.model === undefined || data.model === '') throw invalidArgument('model is required', { field: 'model' });
  if (data.deployment === undefined || data.deployment === '') throw invalidArgument('deployment is required', { field: 'deployment' });
  const model = (await env.requireReference<Model>(ctx, data.model, 'models', accountId, 'model')).data;
  const deployment = (await env.requireReference<Deployment>(ctx, data.deployment, 'deployments', accountId, 'deployment')).data;
  assertDeployable(model, deployment);
  const existing = await findDeployedModels(ctx, env, accountId, { model: data.model });
  const same = existing.find((record) => record.deployment === data.deployment);
  if (same) throw alreadyExists(`${data.model} on ${data.deployment} (${same.name})`);
  data.default = !existing.some((record) => record.state !== 'UNDEPLOYING');
  data.public = data.public === true;
}

export const deployedModelDefinition: ResourceDefinition<DeployedModel> = {
  collection: 'deployedModels',
  singular: 'deployedModel',
  schema: deployedModelSchema,
  outputOnly: deployedModelOutputOnly,
  immutable: ['model', 'deployment'],
  fields: deployedModelFields,
  defaultOrder: 'create_time',
  stateMachine: deployedModelStateMachine,
  prepareCreate: (ctx, data, env) => prepareDeployedModel(ctx, data, env),
};
