import { idQueryParam, defineResourceApi } from '../../api/resource-api.js';
import { preconditionOf } from '../../api/resource-routes.js';
import { queryString } from '../../api/query.js';
import { deploymentShapeSchema } from './deployment-shape-schema.js';
import type { DeploymentShapeService } from './deployment-shape-service.js';

/** Deployment shapes over HTTP: create takes `?deploymentShapeId=`. */
export const deploymentShapeApi = defineResourceApi<DeploymentShapeService>({
  definition: { collection: 'deploymentShapes', singular: 'deploymentShape', schema: deploymentShapeSchema }, tag: 'Deployment shapes', createQuery: [idQueryParam('deploymentShapeId')],
  operations: (shapes) => ({
    create: (ctx, accountId, r) => shapes.create(ctx, accountId, r.body ?? {}, queryString(r.query, 'deploymentShapeId')),
    get: (ctx, name, mask) => shapes.get(ctx, name, mask),
    list: (ctx, accountId, params) => shapes.list(ctx, accountId, params),
    update: (ctx, name, body, mask, precondition) => shapes.update(ctx, name, body, mask, precondition),
    delete: (ctx, name, r) => shapes.delete(ctx, name, preconditionOf(r)),
  }),
});
