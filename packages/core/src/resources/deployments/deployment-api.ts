import { idQueryParam, defineResourceApi } from '../../api/resource-api.js';
import { assertEmptyBody, emptySchema, preconditionOf } from '../../api/resource-routes.js';
import { queryFlag, queryString } from '../../api/query.js';
import { nonNegativeInt32Schema } from '../common/schema-parts.js';
import { compileValidator } from '../../validation/schema-validator.js';
import { deploymentSchema } from './deployment-schema.js';
import type { DeploymentService } from './deployment-service.js';

const scaleBody = { type: 'object', properties: { replicaCount: nonNegativeInt32Schema }, required: ['replicaCount'] } as const;
const validateScaleBody = compileValidator(scaleBody, 'request body');

/** Deployments over HTTP: create/list/delete flags, `:scale` and `:undelete`. */
export const deploymentApi = defineResourceApi<DeploymentService>({
  definition: { collection: 'deployments', singular: 'deployment', schema: deploymentSchema }, tag: 'Deployments',
  createQuery: [
    idQueryParam('deploymentId'),
    { name: 'validateOnly', type: 'boolean', description: 'Validate and answer the deployment without creating it.' },
    { name: 'skipShapeValidation', type: 'boolean', description: 'Allow settings that differ from the named deployment shape.' },
  ],
  extraListQuery: [{ name: 'showDeleted', type: 'boolean', description: 'Include DELETED deployments.' }],
  deleteQuery: [
    { name: 'hard', type: 'boolean', description: 'Remove the deployment instead of soft-deleting it.' },
    { name: 'ignoreChecks', type: 'boolean', description: 'Delete even though the deployment is in use.' },
  ],
  operations: (deployments) => ({
    create: (ctx, accountId, r) => {
      const id = queryString(r.query, 'deploymentId');
      return deployments.create(ctx, accountId, r.body ?? {}, {
        ...(id !== undefined ? { deploymentId: id } : {}),
        validateOnly: queryFlag(r.query, 'validateOnly'),
        skipShapeValidation: queryFlag(r.query, 'skipShapeValidation'),
      });
    },
    get: (ctx, name, mask) => deployments.get(ctx, name, mask),
    list: (ctx, accountId, params, r) => deployments.list(ctx, accountId, { ...params, showDeleted: queryFlag(r.query, 'showDeleted') }),
    update: (ctx, name, body, mask, precondition) => deployments.update(ctx, name, body, mask, precondition),
    delete: (ctx, name, r) =>
      deployments.delete(ctx, name, { hard: queryFlag(r.query, 'hard'), ignoreChecks: queryFlag(r.query, 'ignoreChecks'), ...preconditionOf(r) }),
  }),
  customMethods: [
    {
      method: 'PATCH', verb: 'scale', operationId: 'scaleDeployment', summary: 'Set the replica count of a deployment',
      requestBody: scaleBody, response: emptySchema, permission: 'deployments.update',
      handle: async (deployments, name, r) => {
        validateScaleBody(r.body ?? {});
        await deployments.scale(r.ctx, name, (r.body as { replicaCount: number }).replicaCount);
        return {};
      },
    },
    {
      method: 'POST', verb: 'undelete', operationId: 'undeleteDeployment', summary: 'Restore a soft-deleted deployment',
      requestBody: emptySchema, response: deploymentSchema, permission: 'deployments.action',
      handle: (deployments, name, r) => {
        assertEmptyBody(r.body);
        return deployments.undelete(r.ctx, name);
      },
    },
  ],
});
