import {
  compileValidator, createDatasetRequestSchema, datasetSchema, deployedModelSchema, deploymentSchema, deploymentShapeSchema, modelSchema, userSchema,
  batchInferenceJobSchema, reinforcementFineTuningJobSchema, nonNegativeInt32Schema,
  type CoreServices, type JsonSchema,
} from '@berth/core';
import { queryFlag, queryString } from '../query.js';
import type { RouteSpec } from '../route-spec.js';
import { assertEmptyBody, emptySchema, preconditionOf, resourceRoutes, wrapperParts } from './resource-routes.js';

const idParam = (name: string) => ({ name, type: 'string' as const, description: 'Id of the new resource; generated when absent.' });

const modelCreateBody: JsonSchema = { type: 'object', properties: { modelId: { type: 'string' }, model: modelSchema } };
const validateModelWrapper = compileValidator({ type: 'object', properties: { modelId: { type: 'string' }, model: { type: 'object' } } }, 'request body');
const scaleBody = { type: 'object', properties: { replicaCount: nonNegativeInt32Schema }, required: ['replicaCount'] } as const;
const validateScaleBody = compileValidator(scaleBody, 'request body');

/** Every control-plane route, built on the core services. */
export function controlPlaneRoutes(services: CoreServices): RouteSpec[] {
  const deploymentName = (p: Readonly<Record<string, string>>) => `accounts/${p.account_id}/deployments/${p.deployment_id}`;
  const rftName = (p: Readonly<Record<string, string>>) => `accounts/${p.account_id}/reinforcementFineTuningJobs/${p.reinforcement_fine_tuning_job_id}`;
  return [
    ...resourceRoutes({
      tag: 'Models', collection: 'models', singular: 'model', snakeSingular: 'model', schema: modelSchema,
      createBody: modelCreateBody,
      operations: {
        create: (ctx, accountId, r) => {
          validateModelWrapper(r.body ?? {});
          const { id, inner } = wrapperParts(r.body ?? {}, 'modelId', 'model');
          return services.models.create(ctx, accountId, inner ?? {}, id);
        },
        get: (ctx, name, mask) => services.models.get(ctx, name, mask),
        list: (ctx, accountId, params) => services.models.list(ctx, accountId, params),
        update: (ctx, name, body, mask, precondition) => services.models.update(ctx, name, body, mask, precondition),
        delete: (ctx, name, r) => services.models.delete(ctx, name, preconditionOf(r)),
      },
    }),
    ...resourceRoutes({
      tag: 'Datasets', collection: 'datasets', singular: 'dataset', snakeSingular: 'dataset', schema: datasetSchema,
      createBody: createDatasetRequestSchema,
      operations: {
        create: (ctx, accountId, r) => services.datasets.create(ctx, accountId, r.body ?? {}),
        get: (ctx, name, mask) => services.datasets.get(ctx, name, mask),
        list: (ctx, accountId, params) => services.datasets.list(ctx, accountId, params),
        delete: (ctx, name, r) => services.datasets.delete(ctx, name, preconditionOf(r)),
      },
    }),
    ...resourceRoutes({
      tag: 'Users', collection: 'users', singular: 'user', snakeSingular: 'user', schema: userSchema,
      createQuery: [idParam('userId')],
      operations: {
        create: (ctx, accountId, r) => services.users.create(ctx, accountId, r.body ?? {}, queryString(r.query, 'userId')),
        get: (ctx, name, mask) => services.users.get(ctx, name, mask),
        list: (ctx, accountId, params) => services.users.list(ctx, accountId, params),
        update: (ctx, name, body, mask, precondition) => services.users.update(ctx, name, body, mask, precondition),
        delete: (ctx, name, r) => services.users.delete(ctx, name, preconditionOf(r)),
      },
    }),
    ...resourceRoutes({
      tag: 'Deployment shapes', collection: 'deploymentShapes', singular: 'deploymentShape', snakeSingular: 'deployment_shape',
      schema: deploymentShapeSchema, createQuery: [idParam('deploymentShapeId')],
      operations: {
        create: (ctx, accountId, r) => services.deploymentShapes.create(ctx, accountId, r.body ?? {}, queryString(r.query, 'deploymentShapeId')),
        get: (ctx, name, mask) => services.deploymentShapes.get(ctx, name, mask),
        list: (ctx, accountId, params) => services.deploymentShapes.list(ctx, accountId, params),
        update: (ctx, name, body, mask, precondition) => services.deploymentShapes.update(ctx, name, body, mask, precondition),
        delete: (ctx, name, r) => services.deploymentShapes.delete(ctx, name, preconditionOf(r)),
      },
    }),
    ...resourceRoutes({
      tag: 'Deployments', collection: 'deployments', singular: 'deployment', snakeSingular: 'deployment', schema: deploymentSchema,
      createQuery: [
        idParam('deploymentId'),
        { name: 'validateOnly', type: 'boolean', description: 'Validate and answer the deployment without creating it.' },
        { name: 'skipShapeValidation', type: 'boolean', description: 'Allow settings that differ from the named deployment shape.' },
      ],
      extraListQuery: [{ name: 'showDeleted', type: 'boolean', description: 'Include DELETED deployments.' }],
      deleteQuery: [
        { name: 'hard', type: 'boolean', description: 'Remove the deployment instead of soft-deleting it.' },
        { name: 'ignoreChecks', type: 'boolean', description: 'Delete even though the deployment is in use.' },
      ],
      operations: {
        create: (ctx, accountId, r) => {
          const id = queryString(r.query, 'deploymentId');
          return services.deployments.create(ctx, accountId, r.body ?? {}, {
            ...(id !== undefined ? { deploymentId: id } : {}),
            validateOnly: queryFlag(r.query, 'validateOnly'),
            skipShapeValidation: queryFlag(r.query, 'skipShapeValidation'),
          });
        },
        get: (ctx, name, mask) => services.deployments.get(ctx, name, mask),
        list: (ctx, accountId, params, r) => services.deployments.list(ctx, accountId, { ...params, showDeleted: queryFlag(r.query, 'showDeleted') }),
        update: (ctx, name, body, mask, precondition) => services.deployments.update(ctx, name, body, mask, precondition),
        delete: (ctx, name, r) =>
          services.deployments.delete(ctx, name, { hard: queryFlag(r.query, 'hard'), ignoreChecks: queryFlag(r.query, 'ignoreChecks'), ...preconditionOf(r) }),
      },
    }),
    {
      method: 'PATCH', path: '/v1/accounts/{account_id}/deployments/{deployment_id}:scale', tag: 'Deployments',
      operationId: 'scaleDeployment', summary: 'Set the replica count of a deployment', requestBody: scaleBody, response: emptySchema,
      permission: 'deployments.update',
      handle: async (r) => {
        validateScaleBody(r.body ?? {});
        await services.deployments.scale(r.ctx, deploymentName(r.params), (r.body as { replicaCount: number }).replicaCount);
        return {};
      },
    },
    {
      method: 'POST', path: '/v1/accounts/{account_id}/deployments/{deployment_id}:undelete', tag: 'Deployments',
      operationId: 'undeleteDeployment', summary: 'Restore a soft-deleted deployment', requestBody: emptySchema, response: deploymentSchema,
      permission: 'deployments.action',
      handle: (r) => {
        assertEmptyBody(r.body);
        return services.deployments.undelete(r.ctx, deploymentName(r.params));
      },
    },
    ...resourceRoutes({
      tag: 'Deployed models', collection: 'deployedModels', singular: 'deployedModel', snakeSingular: 'deployed_model',
      schema: deployedModelSchema,
      createQuery: [
        idParam('deployedModelId'),
        { name: 'validateOnly', type: 'boolean', description: 'Validate and answer the deployed model without creating it.' },
      ],
      operations: {
        create: (ctx, accountId, r) => {
          const id = queryString(r.query, 'deployedModelId');
          return services.deployedModels.create(ctx, accountId, r.body ?? {}, {
            ...(id !== undefined ? { deployedModelId: id } : {}),
            validateOnly: queryFlag(r.query, 'validateOnly'),
          });
        },
        get: (ctx, name, mask) => services.deployedModels.get(ctx, name, mask),
        list: (ctx, accountId, params) => services.deployedModels.list(ctx, accountId, params),
        update: (ctx, name, body, mask, precondition) => services.deployedModels.update(ctx, name, body, mask, precondition),
        delete: (ctx, name, r) => services.deployedModels.delete(ctx, name, preconditionOf(r)),
      },
    }),
    ...resourceRoutes({
      tag: 'Batch inference jobs', collection: 'batchInferenceJobs', singular: 'batchInferenceJob', snakeSingular: 'batch_inference_job',
      schema: batchInferenceJobSchema, createQuery: [idParam('batchInferenceJobId')],
      operations: {
        create: (ctx, accountId, r) => services.batchInferenceJobs.create(ctx, accountId, r.body ?? {}, queryString(r.query, 'batchInferenceJobId')),
        get: (ctx, name, mask) => services.batchInferenceJobs.get(ctx, name, mask),
        list: (ctx, accountId, params) => services.batchInferenceJobs.list(ctx, accountId, params),
        delete: (ctx, name, r) => services.batchInferenceJobs.delete(ctx, name, preconditionOf(r)),
      },
    }),
    ...resourceRoutes({
      tag: 'Reinforcement fine-tuning jobs', collection: 'reinforcementFineTuningJobs', singular: 'reinforcementFineTuningJob',
      snakeSingular: 'reinforcement_fine_tuning_job', schema: reinforcementFineTuningJobSchema,
      createQuery: [idParam('reinforcementFineTuningJobId')],
      operations: {
        create: (ctx, accountId, r) =>
          services.reinforcementFineTuningJobs.create(ctx, accountId, r.body ?? {}, queryString(r.query, 'reinforcementFineTuningJobId')),
        get: (ctx, name, mask) => services.reinforcementFineTuningJobs.get(ctx, name, mask),
        list: (ctx, accountId, params) => services.reinforcementFineTuningJobs.list(ctx, accountId, params),
        delete: (ctx, name, r) => services.reinforcementFineTuningJobs.delete(ctx, name, preconditionOf(r)),
      },
    }),
    {
      method: 'POST', path: '/v1/accounts/{account_id}/reinforcementFineTuningJobs/{reinforcement_fine_tuning_job_id}:cancel',
      tag: 'Reinforcement fine-tuning jobs', operationId: 'cancelReinforcementFineTuningJob', summary: 'Cancel a reinforcement fine-tuning job',
      requestBody: emptySchema, response: emptySchema, permission: 'reinforcementFineTuningJobs.action',
      handle: async (r) => {
        assertEmptyBody(r.body);
        await services.reinforcementFineTuningJobs.cancel(r.ctx, rftName(r.params));
        return {};
      },
    },
    {
      method: 'POST', path: '/v1/accounts/{account_id}/reinforcementFineTuningJobs/{reinforcement_fine_tuning_job_id}:resume',
      tag: 'Reinforcement fine-tuning jobs', operationId: 'resumeReinforcementFineTuningJob', summary: 'Resume a paused or failed reinforcement fine-tuning job',
      requestBody: emptySchema, response: reinforcementFineTuningJobSchema, permission: 'reinforcementFineTuningJobs.action',
      handle: (r) => {
        assertEmptyBody(r.body);
        return services.reinforcementFineTuningJobs.resume(r.ctx, rftName(r.params));
      },
    },
  ];
}
