import type { RequestContext } from '../../kernel/request-context.js';
import type { JsonObject } from '../../ports/json.js';
import type { ResourceEnvironment } from '../common/resource-environment.js';
import { ResourceService, type ListPage, type ListParams, type PreconditionOptions } from '../common/resource-service.js';
import type { GatewaySecrets } from '../common/secrets.js';
import type { ServingAdvisor } from '../common/sizing.js';
import { deploymentShapeDefinition } from './deployment-shape-definition.js';

export class DeploymentShapeService {
  readonly resources: ResourceService;

  constructor(env: ResourceEnvironment, secrets: GatewaySecrets, advisor: ServingAdvisor) {
    this.resources = new ResourceService(deploymentShapeDefinition(advisor), env, secrets);
  }

  create(ctx: RequestContext, accountId: string, body: unknown, deploymentShapeId?: string): Promise<JsonObject> {
    return this.resources.create(ctx, accountId, body, deploymentShapeId === undefined ? {} : { id: deploymentShapeId });
  }
  get(ctx: RequestContext, name: string, readMask?: string): Promise<JsonObject> {
    return this.resources.get(ctx, name, readMask);
  }
  list(ctx: RequestContext, accountId: string, params: ListParams): Promise<ListPage> {
    return this.resources.list(ctx, accountId, params);
  }
  update(ctx: RequestContext, name: string, body: unknown, updateMask?: string, options: PreconditionOptions = {}): Promise<JsonObject> {
    return this.resources.update(ctx, name, body, updateMask, options);
  }
  delete(ctx: RequestContext, name: string, options: PreconditionOptions = {}): Promise<void> {
    return this.resources.delete(ctx, name, options);
  }
}
