import { defineResourceApi } from '../../api/resource-api.js';
import { preconditionOf } from '../../api/resource-routes.js';
import { createWithId } from '../../api/create-method.js';
import { customMethod } from '../../api/custom-method.js';
import { standardOperations } from '../../api/standard-operations.js';
import { queryFlag } from '../../api/query.js';
import { nonNegativeInt32Schema } from '../common/schema-parts.js';
import { deploymentOutputOnly, deploymentSchema } from './deployment-schema.js';
import type { DeploymentService } from './deployment-service.js';

const scaleBody = { type: 'object', properties: { replicaCount: nonNegativeInt32Schema }, required: ['replicaCount'] } as const;

/** Deployments over HTTP: create/list/delete flags, `:scale` and `:undelete`. */
export const deploymentApi = defineResourceApi<DeploymentService>({
  definition: { collection: 'deployments', singular: 'deployment', schema: deploymentSchema, outputOnly: deploymentOutputOnly }, tag: 'Deployments',
  create: createWithId(
    'deploymentId',
    (deployments, ctx, accountId, body, id, r) =>
      deployments.create(ctx, accountId, body, {
        deploymentId: id,
        validateOnly: queryFlag(r.query, 'validateOnly'),
        skipShapeValidation: queryFlag(r.query, 'skipShapeValidation'),
      }),
    [
      { name: 'validateOnly', type: 'boolean', description: 'Validate and answer the deployment without creating it.' },
      { name: 'skipShapeValidation', type: 'boolean', description: 'Allow settings that differ from the named deployment shape.' },
    ],
  ),
  extraListQuery: [{ name: 'showDeleted', type: 'boolean', description: 'Include DELETED deployments.' }],
  deleteQuery: [
    { name: 'hard', type: 'boolean', description: 'Remove the deployment instead of soft-deleting it.' },
    { name: 'ignoreChecks', type: 'boolean', description: 'Delete even though the deployment is in use.' },
  ],
  operations: (deployments) => ({
    ...standardOperations(deployments, ['update']),
    list: (ctx, accountId, params, r) => deployments.list(ctx, accountId, { ...params, showDeleted: queryFlag(r.query, 'showDeleted') }),
    delete: (ctx, name, r) =>
      deployments.delete(ctx, name, { hard: queryFlag(r.query, 'hard'), ignoreChecks: queryFlag(r.query, 'ignoreChecks'), ...preconditionOf(r) }),
  }),
  customMethods: [
    customMethod({
      method: 'PATCH', verb: 'scale', operationId: 'scaleDeployment', summary: 'Set the replica count of a deployment',
      permission: 'deployments.update', requestBody: scaleBody,
      run: (deployments, ctx, name, body: { replicaCount: number }) => deployments.scale(ctx, name, body.replicaCount),
    }),
    customMethod({
      verb: 'undelete', operationId: 'undeleteDeployment', summary: 'Restore a soft-deleted deployment',
      permission: 'deployments.action', response: deploymentSchema, run: (deployments, ctx, name) => deployments.undelete(ctx, name),
    }),
  ],
});
