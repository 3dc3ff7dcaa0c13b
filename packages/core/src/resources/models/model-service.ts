import type { RequestContext } from '../../kernel/request-context.js';
import type { JsonObject } from '../../ports/json.js';
import type { StoredResource } from '../../ports/storage.js';
import { parseOrderBy } from '../../listing/index.js';
import type { FieldDeclarations } from '../../listing/fields.js';
import type { CheckedFilter } from '../../listing/filter/ast.js';
import type { ResourceEnvironment } from '../common/resource-environment.js';
import { ResourceService, type ListPage, type ListParams, type PreconditionOptions } from '../common/resource-service.js';
import type { GatewaySecrets } from '../common/secrets.js';
import { modelDefinition } from './model-definition.js';

const deployedModelLookupFields: FieldDeclarations = {
  name: { path: ['name'], type: 'string' },
  model: { path: ['model'], type: 'string' },
  createTime: { path: ['createTime'], type: 'timestamp' },
};
const deployedModelOrder = parseOrderBy(undefined, deployedModelLookupFields, 'create_time');

/** `model = <name>`, built directly: this runs on every GET of a model. */
function modelEquals(modelName: string): CheckedFilter {
  return {
    kind: 'compare',
    field: { declaration: deployedModelLookupFields.model!, position: 0 },
    operator: '=',
    value: { type: 'string', value: modelName, wildcard: false },
  };
}

/** A `deployedModelRefs` entry from a deployed-model record; records come oldest first, the first is the default target. */
function deployedModelRef({ data }: StoredResource): JsonObject {
  return {
    name: data.name ?? '',
    deployment: data.deployment ?? '',
    state: data.state ?? 'STATE_UNSPECIFIED',
    default: data.default === true,
    public: data.public === true,
  };
}

/** Models: the registry. `get` adds `deployedModelRefs`, which lists never carry. */
export class ModelService {
  readonly resources: ResourceService;

  constructor(private readonly env: ResourceEnvironment, secrets: GatewaySecrets) {
    this.resources = new ResourceService(modelDefinition, env, secrets);
  }

  create(ctx: RequestContext, accountId: string, body: unknown, modelId?: string): Promise<JsonObject> {
    return this.resources.create(ctx, accountId, body, modelId === undefined ? {} : { id: modelId });
  }

  async get(ctx: RequestContext, name: string, readMask?: string): Promise<JsonObject> {
    const { accountId } = this.resources.authorizeName(ctx, name, 'get');
    const stored = await this.resources.getStored(ctx, name);
    const result = await this.env.storage.resources.list(ctx, {
      parent: `accounts/${accountId}`,
      collection: 'deployedModels',
      filter: modelEquals(name),
      orderBy: deployedModelOrder,
      pageSize: 200,
    });
    // One spread, not a spread of `withEtag`'s result: a record spread twice is slow to read (see `ordered`).
    const data = result.items.length > 0
      ? this.resources.ordered({ ...stored.data, etag: stored.etag, deployedModelRefs: result.items.map(deployedModelRef) })
      : this.resources.withEtag(stored);
    return this.resources.mask(data, readMask);
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
