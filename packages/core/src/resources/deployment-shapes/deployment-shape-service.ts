import { crudService } from '../common/crud-service.js';
import { deploymentShapeDefinition } from './deployment-shape-definition.js';

/**
 * Deployment shapes: the five standard methods as the definition makes them (built with the serving
 * advisor: `new DeploymentShapeService(env, secrets, advisor)`).
 */
export class DeploymentShapeService extends crudService(deploymentShapeDefinition, ['create', 'get', 'list', 'update', 'delete']) {}
