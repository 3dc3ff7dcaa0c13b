import { defineResourceApi } from '../../api/resource-api.js';
import { createWithIdParam } from '../../api/create-method.js';
import { standardOperations } from '../../api/standard-operations.js';
import { deploymentShapeOutputOnly, deploymentShapeSchema } from './deployment-shape-schema.js';
import type { DeploymentShapeService } from './deployment-shape-service.js';

/** Deployment shapes over HTTP: create takes `?deploymentShapeId=`. */
export const deploymentShapeApi = defineResourceApi<DeploymentShapeService>({
  definition: { collection: 'deploymentShapes', singular: 'deploymentShape', schema: deploymentShapeSchema, outputOnly: deploymentShapeOutputOnly }, tag: 'Deployment shapes',
  create: createWithIdParam('deploymentShapeId'),
  operations: (shapes) => standardOperations(shapes, ['update', 'delete']),
});
