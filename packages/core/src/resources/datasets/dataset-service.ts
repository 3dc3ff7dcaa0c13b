import type { RequestContext } from '../../kernel/request-context.js';
import { authorize } from '../../auth/permissions.js';
import { assertValidId } from '../../names/resource-name.js';
import { compileValidator } from '../../validation/schema-validator.js';
import { crudService } from '../common/crud-service.js';
import type { PreconditionOptions } from '../common/resource-service.js';
import { assertTransition } from '../common/state-machine.js';
import { deleteUploadedResource } from '../common/upload-plans.js';
import { datasetDefinition } from './dataset-definition.js';
import { datasetFilesPrefix } from './dataset-files.js';
import { applyDatasetCreateRules, checkDerivationRequest, datasetNameOf, int64Count, type DatasetDerivation } from './dataset-rules.js';
import { createDatasetRequestSchema, type CreateDatasetRequest, type Dataset } from './dataset-schema.js';
import type { MalformedRow } from './dataset-rows.js';
import { datasetStateMachine } from './dataset-state-machine.js';

const validateCreateRequest = compileValidator(createDatasetRequestSchema, 'request body');

/** What the upload flow learned while validating a dataset's files. */
export interface DatasetReadyInfo {
  readonly exampleCount?: number | string;
  readonly estimatedTokenCount?: number | string;
  /** Rows of a batch dataset that cannot be used (recorded as `validationDetails` when any). */
  readonly malformedRowCount?: number;
  readonly malformedRows?: readonly MalformedRow[];
}

/**
 * Datasets used for training and batch inference: get, list and delete as the definition makes them;
 * create takes the request wrapper `{dataset, datasetId, sourceDatasetId, filter}`; `markReady` ends an
 * upload; delete also forgets an upload in progress. There is no update (the API has none).
 */
export class DatasetService extends crudService(datasetDefinition, ['get', 'list']) {

  /**
   * Creates a dataset from the whole request body. The wrapper is strict (unknown keys are
   * INVALID_ARGUMENT), `dataset` is checked against the resource schema, `datasetId` is generated when
   * absent. With `sourceDatasetId` (bare id or full name, same account, must exist) and a non-blank
   * `filter`, the dataset is derived from that one. Throws PERMISSION_DENIED, INVALID_ARGUMENT,
   * ALREADY_EXISTS.
   */
  async create(ctx: RequestContext, accountId: string, body: unknown): Promise<Dataset> {
    assertValidId(accountId, 'account_id');
    authorize(ctx, 'datasets.create', { accountId });
    validateCreateRequest(body ?? {});
    const request = (body ?? {}) as CreateDatasetRequest;
    const data = this.resources.validate(request.dataset ?? {});
    const id = request.datasetId === undefined || request.datasetId === '' ? this.resources.env.ids.resourceId() : assertValidId(request.datasetId, 'datasetId');
    const derivationRequest = checkDerivationRequest(request.sourceDatasetId, request.filter);
    let derivation: DatasetDerivation | undefined;
    if (derivationRequest) {
      const sourceName = datasetNameOf(derivationRequest.sourceDatasetId, accountId, 'sourceDatasetId');
      const source = await this.resources.env.requireReference<Dataset>(ctx, sourceName, 'datasets', accountId, 'sourceDatasetId');
      derivation = { sourceName, source: source.data, filter: derivationRequest.filter };
    }
    const now = this.resources.env.nowIso();
    const record: Dataset = {
      name: this.resources.nameOf(accountId, id),
      ...data,
      createTime: now,
      updateTime: now,
      state: datasetStateMachine.initial,
    };
    applyDatasetCreateRules(record, { createdBy: ctx.principal?.email, derivation });
    return this.resources.insert(ctx, record);
  }

  /** Deletes the dataset with its upload in progress, then its files: a new dataset of the name starts empty. */
  async delete(ctx: RequestContext, name: string, options: PreconditionOptions = {}): Promise<void> {
    await deleteUploadedResource(ctx, this.resources, name, datasetFilesPrefix(name), options);
  }

  /**
   * Marks an UPLOADING dataset READY once its files are validated, recording the counts the
   * validation found. FAILED_PRECONDITION when the dataset is not UPLOADING; NOT_FOUND when absent.
   */
  async markReady(ctx: RequestContext, name: string, info: DatasetReadyInfo = {}): Promise<Dataset> {
    this.resources.authorizeName(ctx, name, 'action');
    const exampleCount = info.exampleCount === undefined ? undefined : int64Count(info.exampleCount, 'exampleCount');
    const tokens = info.estimatedTokenCount === undefined ? undefined : int64Count(info.estimatedTokenCount, 'estimatedTokenCount');
    return this.resources.mutate(ctx, name, (dataset) => {
      assertTransition(datasetStateMachine, dataset.state ?? 'STATE_UNSPECIFIED', 'READY');
      dataset.state = 'READY';
      if (exampleCount !== undefined) dataset.exampleCount = exampleCount;
      if (tokens !== undefined) dataset.estimatedTokenCount = tokens;
      if (info.malformedRowCount !== undefined && info.malformedRowCount > 0) {
        dataset.validationDetails = { malformedRowCount: String(info.malformedRowCount), malformedRows: [...(info.malformedRows ?? [])] };
      } else delete dataset.validationDetails;
      delete dataset.status;
      return dataset;
    });
  }
}
