import type { RequestContext } from '../../kernel/request-context.js';
import type { StoredResource } from '../../ports/storage.js';
import { parseOrderBy } from '../../listing/index.js';
import type { FieldDeclarations } from '../../listing/fields.js';
import type { CheckedFilter } from '../../listing/filter/ast.js';
import { crudService } from '../common/crud-service.js';
import { storedOf } from '../common/resource-environment.js';
import type { PreconditionOptions } from '../common/resource-service.js';
import { deleteUploadedResource } from '../common/upload-plans.js';
import { modelFilesPrefix } from './model-files.js';
import { modelDefinition } from './model-definition.js';
import type { Model } from './model-schema.js';

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

export type DeployedModelRef = NonNullable<Model['deployedModelRefs']>[number];

/**
 * A `deployedModelRefs` entry from a deployed-model record (whose fields of the same names have the same
 * types); records come oldest first, the first is the default target.
 */
function deployedModelRef(row: StoredResource): DeployedModelRef {
  const record = storedOf<DeployedModelRef>(row).data;
  return {
    name: record.name ?? '',
    deployment: record.deployment ?? '',
    state: record.state ?? 'STATE_UNSPECIFIED',
    default: record.default === true,
    public: record.public === true,
  };
}

/**
 * Models: the registry. Create, list and update as the definition makes them; `get` adds
 * `deployedModelRefs`, which lists never carry; `delete` also removes the model's uploaded files.
 */
export class ModelService extends crudService(modelDefinition, ['create', 'list', 'update']) {

  /** Deletes the model, then its uploaded files and any upload in progress (a new model of the name starts empty). */
  async delete(ctx: RequestContext, name: string, options: PreconditionOptions = {}): Promise<void> {
    await deleteUploadedResource(ctx, this.resources, name, modelFilesPrefix(name), options);
  }

  async get(ctx: RequestContext, name: string, readMask?: string): Promise<Model> {
    const { accountId } = this.resources.authorizeName(ctx, name, 'get');
    const stored = await this.resources.getStored(ctx, name);
    const result = await this.resources.env.storage.resources.list(ctx, {
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
}
