import {
  coreServicesToken, systemContext,
  type CoreServices, type Deployment, type Gateway, type Model, type RequestContext, type Role,
} from '@berth/core';

/**
 * Your own application code, calling Berth's services in process: no HTTP, no JSON on the wire, the same
 * validation, state machines and errors (`GatewayError` with a `code`) as the REST API.
 */
export class ModelCatalog {
  private readonly services: CoreServices;

  constructor(gateway: Gateway, private readonly accountId: string) {
    this.services = gateway.resolve(coreServicesToken);
  }

  /**
   * The context of a call. Without a principal a call is trusted (your own code acting for the system);
   * with one it is authorized exactly as an HTTP request of that user would be.
   */
  context(as?: { userId: string; role: Role }): RequestContext {
    if (as === undefined) return systemContext('model-catalog');
    return {
      requestId: `model-catalog-${as.userId}-${Date.now()}`,
      principal: { userName: `accounts/${this.accountId}/users/${as.userId}`, accountId: this.accountId, role: as.role },
    };
  }

  /** Registers a Hugging Face base model. */
  register(ctx: RequestContext, modelId: string, parameterCount: bigint): Promise<Model> {
    return this.services.models.create(ctx, this.accountId, {
      kind: 'HUB_BASE_MODEL',
      baseModelDetails: { parameterCount: parameterCount.toString(), checkpointFormat: 'HUB', hubFiles: ['model.safetensors'] },
    }, modelId);
  }

  /** Deploys a model on an accelerator type and waits until the deployment is READY (or `timeoutMs` passes). */
  async deploy(ctx: RequestContext, modelId: string, deploymentId: string, acceleratorType: string, timeoutMs = 30_000): Promise<Deployment> {
    const created = await this.services.deployments.create(ctx, this.accountId, {
      baseModel: `accounts/${this.accountId}/models/${modelId}`,
      acceleratorType,
    }, { deploymentId });
    const deadline = Date.now() + timeoutMs;
    for (let deployment = created; ; deployment = await this.services.deployments.get(ctx, created.name!)) {
      if (deployment.state === 'READY') return deployment;
      if (deployment.state === 'FAILED' || Date.now() > deadline) throw new Error(`${created.name} is ${deployment.state}, not READY`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** The names of the READY deployments on an accelerator type (an AIP-160 filter, as `?filter=` over HTTP). */
  async readyOn(ctx: RequestContext, acceleratorType: string): Promise<string[]> {
    const page = await this.services.deployments.list(ctx, this.accountId, {
      filter: `state = READY AND accelerator_type = ${acceleratorType}`,
      orderBy: 'create_time desc',
    });
    return page.items.map((deployment) => deployment.name!);
  }
}
