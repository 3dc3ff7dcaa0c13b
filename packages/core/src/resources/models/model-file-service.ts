import type { GatewayError} from '../../errors/index.js';
import { failedPrecondition, invalidArgument, isGatewayError, permissionDenied } from '../../errors/index.js';
import type { RequestContext } from '../../kernel/request-context.js';
import type { JsonObject } from '../../ports/json.js';
import { blobDownloadAnswer, type DownloadRequest } from '../../api/blob-download.js';
import { ByteBound } from '../../blobs/byte-bound.js';
import type { BinaryAnswer, StreamAnswer, StreamedRequestBody } from '../../api/route-spec.js';
import { compileValidator } from '../../validation/schema-validator.js';
import type { ResourceEnvironment } from '../common/resource-environment.js';
import type { GatewaySecrets } from '../common/secrets.js';
import { SignedFileUrls, type SignedFileRequest } from '../common/signed-file-urls.js';
import { assertTransition } from '../common/state-machine.js';
import { deleteUploadPlan, mergeUploadPlan, readUploadPlan, type UploadPlan } from '../common/upload-plans.js';
import { checkModelFileName, listModelFiles, modelFileKey, quotedFileName } from './model-files.js';
import type { Model } from './model-schema.js';
import type { ModelService } from './model-service.js';
import { modelStateMachine } from './model-state-machine.js';
import {
  checkBaseCheckpoint, checkPeftAddon, ModelFileProblem, type AddonBase, type ModelUploadCheckOptions, type ModelUploadFacts,
  type UploadedModelFiles,
} from './model-upload-checks.js';
import { SafetensorsError, SafetensorsStreamChecker, type SafetensorsSummary } from './safetensors-header.js';
import { readSafetensorsHeader, readStoredJson, type StoredFileReader } from './stored-file-reads.js';

export interface ModelFileOptions {
  /** Largest file accepted, in bytes (`BERTH_MAX_MODEL_FILE_BYTES`). Default 16 GiB. */
  readonly maxFileBytes?: number;
  /** Largest total of a model's files, in bytes (`BERTH_MAX_MODEL_BYTES`). Default 256 GiB. */
  readonly maxModelBytes?: number;
  /** How long a signed URL is valid. Default 1 hour. */
  readonly urlTtlMs?: number;
}

export const defaultMaxModelFileBytes = 16 * 1024 ** 3;
export const defaultMaxModelBytes = 256 * 1024 ** 3;
/** Most files one model may hold. */
export const maxModelFiles = 1000;

const validateUploadRequest = compileValidator(
  {
    type: 'object',
    properties: {
      filenameToSize: {
        type: 'object',
        additionalProperties: { anyOf: [{ type: 'string', pattern: '^[0-9]{1,19}$' }, { type: 'integer', minimum: 0 }] },
      },
      enableResumableUpload: { type: 'boolean' },
      readMask: { type: 'string' },
    },
    required: ['filenameToSize'],
  },
  'request body',
);

/** Kinds whose files Berth checks and serves. */
const uploadKinds = new Set(['HUB_BASE_MODEL', 'HUB_PEFT_ADDON', 'HUB_TEFT_ADDON']);

/**
 * The model upload flow of the reference API, served by the gateway itself, over the blob layout of
 * `model-files.ts`:
 *
 * 1. `:getUploadEndpoint` (POST `{filenameToSize}`) announces files with their sizes and answers one signed
 *    PUT URL per file. The model must be UPLOADING; a READY model of an upload kind that holds no files
 *    yet starts its upload here (READY → UPLOADING). Sizes are capped per file and per model.
 * 2. `PUT` each file's bytes to its URL: streamed to the blob store, never held whole; exactly the
 *    announced size (a longer body is cut off at the first byte too many, a shorter one refused at its
 *    end), `.safetensors` headers checked as they pass. Any failure leaves no stored file.
 * 3. `:validateUpload` (GET) checks what a serving engine needs (`model-upload-checks.ts`) and makes the
 *    model READY with the facts the headers show; a failure leaves it UPLOADING with a `status` naming
 *    the file and why.
 * 4. `:getDownloadEndpoint` (GET) answers a signed GET URL per stored file of a READY model.
 *
 * Every refusal about a file is a 400 (INVALID_ARGUMENT) whose message starts `file "<name>": `; an
 * announced or required file that has not arrived is FAILED_PRECONDITION (the reference's answer while
 * files are still landing).
 */
export class ModelFileService {
  readonly maxFileBytes: number;
  readonly maxModelBytes: number;
  private readonly urls: SignedFileUrls;
  private readonly reader: StoredFileReader;

  constructor(
    private readonly env: ResourceEnvironment,
    secrets: GatewaySecrets,
    private readonly models: ModelService,
    options: ModelFileOptions = {},
  ) {
    this.maxFileBytes = options.maxFileBytes ?? defaultMaxModelFileBytes;
    this.maxModelBytes = options.maxModelBytes ?? defaultMaxModelBytes;
    this.urls = new SignedFileUrls(secrets, env.clock, 'berth:model-files', options.urlTtlMs ?? 3600_000);
    this.reader = { blobs: env.storage.blobs };
  }

  /** Announces files and answers their signed upload URLs (see the class comment). */
  async getUploadEndpoint(ctx: RequestContext, name: string, body: unknown): Promise<{ filenameToSignedUrls: Record<string, string> }> {
    this.models.resources.authorizeName(ctx, name, 'update');
    validateUploadRequest(body ?? {});
    const requested = (body as { filenameToSize: Record<string, string | number> }).filenameToSize;
    const names = Object.keys(requested);
    if (names.length === 0) throw invalidArgument('filenameToSize must name at least one file', { field: 'filenameToSize' });
    const files: Record<string, number> = {};
    for (const fileName of names) {
      checkModelFileName(fileName);
      const size = Number(requested[fileName]);
      if (!Number.isSafeInteger(size) || size > this.maxFileBytes) {
        throw invalidArgument(`file ${quotedFileName(fileName)}: ${requested[fileName]} bytes is more than the ${this.maxFileBytes} a model file may hold`, { field: 'filenameToSize' });
      }
      files[fileName] = size;
    }
    // Files already stored decide whether a READY model may start an upload; read before the transaction
    // (a store on the transaction's single connection could not serve it inside).
    const stored = await listModelFiles(ctx, this.env.storage.blobs, name);
    // The plan changes under the model's row lock, in the model's transaction: concurrent announcements
    // of one model run one after another and each merges what the previous ones wrote.
    await this.models.resources.mutate(ctx, name, async (model, txCtx) => {
      await mergeUploadPlan(txCtx, this.env.storage.resources, name, files, ({ files: merged }) => {
        if (Object.keys(merged).length > maxModelFiles) throw invalidArgument(`a model may hold at most ${maxModelFiles} files`, { field: 'filenameToSize' });
        const total = Object.values(merged).reduce((sum, size) => sum + size, 0);
        if (total > this.maxModelBytes) {
          throw invalidArgument(`the model's announced files total ${total} bytes, more than the ${this.maxModelBytes} a model may hold`, { field: 'filenameToSize' });
        }
      });
      if (model.state !== 'UPLOADING') {
        checkUploadable(name, model, stored);
        model.state = 'UPLOADING';
        delete model.status;
      }
      return model;
    });
    return { filenameToSignedUrls: Object.fromEntries(names.map((fileName) => [fileName, this.urls.url(name, fileName, 'PUT')])) };
  }

  private async requireUploading(ctx: RequestContext, name: string): Promise<Model> {
    const model = (await this.models.resources.getStored(ctx, name)).data;
    if (model.state !== 'UPLOADING') throw failedPrecondition(`${name} is ${model.state ?? 'STATE_UNSPECIFIED'}; files are uploaded while it is UPLOADING`, { reason: 'MODEL_STATE' });
    return model;
  }

  /**
   * Stores one announced file from its signed PUT URL, streaming `body` to the blob store with the size
   * enforced as the bytes pass. INVALID_ARGUMENT (400) naming the file for a file not announced, a wrong
   * size (declared, too long or cut short) or a bad safetensors header; nothing is left stored then.
   */
  async putFile(ctx: RequestContext, request: SignedFileRequest, body: StreamedRequestBody | undefined, contentType: string): Promise<void> {
    if (request.method !== 'PUT') throw permissionDenied('this URL is not an upload URL');
    this.urls.verify(request);
    const fileName = checkModelFileName(request.filename, 'filename');
    const plan = await this.uploadPlan(ctx, request.resource);
    const size = plan?.files[fileName];
    if (size === undefined) {
      throw invalidArgument(`file ${quotedFileName(fileName)} was not announced for ${request.resource}: list it in :getUploadEndpoint's filenameToSize first`, { field: 'filename' });
    }
    await this.requireUploading(ctx, request.resource);
    const bad = (why: string) => invalidArgument(`file ${quotedFileName(fileName)}: ${why}`, { field: 'filename' });
    if (body?.declaredLength !== undefined && body.declaredLength !== size) throw bad(`the request carries ${body.declaredLength} bytes but ${size} were announced`);
    const checker = fileName.endsWith('.safetensors') ? new SafetensorsStreamChecker(size) : undefined;
    const bound = new ByteBound({
      max: size,
      tooMany: () => bad(`more than the ${size} bytes announced arrived`),
      tooFew: (received) => bad(`the upload ended after ${received} of the ${size} bytes announced`),
      ...(checker ? { onChunk: (chunk: Uint8Array) => checker.push(chunk) } : {}),
    });
    const key = modelFileKey(request.resource, fileName);
    try {
      await this.env.storage.blobs.putStream(ctx, key, bound.pass(body?.chunks ?? emptyChunks()), contentType);
      checker?.end();
    } catch (error) {
      await this.env.storage.blobs.delete(ctx, key);
      if (error instanceof SafetensorsError) throw bad(`not a valid safetensors file: ${error.message}`);
      if (isGatewayError(error)) throw error;
      throw bad(`the upload was interrupted after ${bound.received} of ${size} bytes (${error instanceof Error ? error.message : String(error)})`);
    }
  }

  /**
   * Serves a stored file from its signed GET URL, streamed: the whole file or the one byte range the
   * request's `Range` asks (`blobDownloadAnswer`).
   */
  async downloadFile(ctx: RequestContext, request: SignedFileRequest, download: DownloadRequest = {}): Promise<StreamAnswer | BinaryAnswer> {
    if (request.method !== 'GET') throw permissionDenied('this URL is not a download URL');
    this.urls.verify(request);
    const key = modelFileKey(request.resource, checkModelFileName(request.filename, 'filename'));
    return blobDownloadAnswer(ctx, this.env.storage.blobs, key, download, {
      notStored: () => failedPrecondition(`file ${quotedFileName(request.filename)} of ${request.resource} is not stored`),
    });
  }

  /**
   * Checks the uploaded files (`model-upload-checks.ts`) and makes the model READY, filling
   * `baseModelDetails.parameterCount`, `defaultPrecision` and `modelType` (base models) or
   * `peftDetails.baseModelType` (add-ons) from what the files show when not given. On failure the model
   * stays UPLOADING with a `status` saying which file and why, and the error is thrown.
   */
  async validateUpload(ctx: RequestContext, name: string, options: ModelUploadCheckOptions = {}): Promise<Record<string, never>> {
    this.models.resources.authorizeName(ctx, name, 'update');
    const model = await this.requireUploading(ctx, name);
    const plan = await this.uploadPlan(ctx, name);
    if (!plan || Object.keys(plan.files).length === 0) throw failedPrecondition(`${name} has no announced files: call :getUploadEndpoint first`, { reason: 'MODEL_STATE' });
    let facts: ModelUploadFacts;
    try {
      const files = await this.uploadedFiles(ctx, name, plan);
      facts = model.kind === 'HUB_BASE_MODEL'
        ? await checkBaseCheckpoint(files, model, options)
        : await checkPeftAddon(files, model, await this.addonBase(ctx, model), options);
    } catch (error) {
      if (!(error instanceof ModelFileProblem)) throw error;
      const refusal = error.kind === 'missing'
        ? failedPrecondition(error.message, { reason: 'MODEL_FILE_MISSING' })
        : invalidArgument(error.message, { reason: 'MODEL_FILE_INVALID' });
      await this.recordFailure(ctx, name, refusal);
      throw refusal;
    }
    await this.models.resources.mutate(ctx, name, (current) => {
      assertTransition(modelStateMachine, current.state ?? 'STATE_UNSPECIFIED', 'READY');
      current.state = 'READY';
      delete current.status;
      applyFacts(current, facts);
      return current;
    });
    await deleteUploadPlan(ctx, this.env.storage.resources, name);
    return {};
  }

  /** The files announced for a model's upload in progress, or undefined when none is. */
  private async uploadPlan(ctx: RequestContext, name: string): Promise<UploadPlan | undefined> {
    return readUploadPlan(ctx, this.env.storage.resources, name);
  }

  /** The announced files, each checked to be stored with its announced size. */
  private async uploadedFiles(ctx: RequestContext, name: string, plan: UploadPlan): Promise<UploadedModelFiles> {
    const sizes = new Map<string, number>();
    for (const [fileName, size] of Object.entries(plan.files)) {
      const head = await this.env.storage.blobs.head(ctx, modelFileKey(name, fileName));
      if (!head) throw new ModelFileProblem(fileName, 'was announced but has not been uploaded', 'missing');
      if (head.size !== size) throw new ModelFileProblem(fileName, `holds ${head.size} bytes but ${size} were announced`);
      sizes.set(fileName, size);
    }
    return this.filesOf(ctx, name, sizes);
  }

  private filesOf(ctx: RequestContext, name: string, sizes: ReadonlyMap<string, number>): UploadedModelFiles {
    return {
      sizes,
      readJson: (fileName) => readStoredJson(ctx, this.reader, modelFileKey(name, fileName), fileName),
      readSafetensors: (fileName) => readSafetensorsHeader(ctx, this.reader, modelFileKey(name, fileName), fileName),
    };
  }

  /** The base model of an add-on with the headers of its stored weights (none when it has no uploaded files). */
  private async addonBase(ctx: RequestContext, model: Model): Promise<AddonBase> {
    const baseName = model.peftDetails!.baseModel;
    const found = await this.env.storage.resources.get(ctx, baseName);
    if (!found) throw new ModelFileProblem('adapter_config.json', `adapts ${baseName}, which does not exist`);
    const base = found.data as Model;
    const headers: SafetensorsSummary[] = [];
    if (base.state === 'READY') {
      for (const fileName of await listModelFiles(ctx, this.env.storage.blobs, baseName)) {
        if (fileName.endsWith('.safetensors')) headers.push(await readSafetensorsHeader(ctx, this.reader, modelFileKey(baseName, fileName), fileName));
      }
    }
    return { name: baseName, model: base, headers };
  }

  private async recordFailure(ctx: RequestContext, name: string, error: GatewayError): Promise<void> {
    await this.models.resources.mutate(ctx, name, (current) => {
      current.status = { code: error.code, message: error.message };
      return current;
    });
  }

  /**
   * A signed GET URL of one stored file, valid for `ttlSeconds`, relative to the gateway's origin: what
   * replicas outside the gateway's process download weights and add-ons with (no long-lived credential).
   */
  downloadUrl(model: string, fileName: string, ttlSeconds: number): string {
    return this.urls.url(model, checkModelFileName(fileName, 'fileName'), 'GET', ttlSeconds * 1000);
  }

  /** Signed download URLs of every stored file of a READY model. */
  async getDownloadEndpoint(ctx: RequestContext, name: string): Promise<{ filenameToSignedUrls: Record<string, string> }> {
    this.models.resources.authorizeName(ctx, name, 'get');
    const model = (await this.models.resources.getStored(ctx, name)).data;
    if (model.state !== 'READY') throw failedPrecondition(`${name} is ${model.state ?? 'STATE_UNSPECIFIED'}; its files are downloadable once it is READY`, { reason: 'MODEL_STATE' });
    const files = await listModelFiles(ctx, this.env.storage.blobs, name);
    if (files.length === 0) throw failedPrecondition(`${name} holds no uploaded files`, { reason: 'MODEL_STATE' });
    return { filenameToSignedUrls: Object.fromEntries(files.map((fileName) => [fileName, this.urls.url(name, fileName, 'GET')])) };
  }
}

/** FAILED_PRECONDITION unless a model may go READY → UPLOADING: an upload kind, holding no files. */
function checkUploadable(name: string, model: Model, stored: readonly string[]): void {
  const kind = model.kind ?? 'KIND_UNSPECIFIED';
  if (!uploadKinds.has(kind)) {
    throw failedPrecondition(`${name} is a ${kind} model; files are uploaded to HUB_BASE_MODEL, HUB_PEFT_ADDON and HUB_TEFT_ADDON models`, { reason: 'MODEL_KIND' });
  }
  if (kind === 'HUB_BASE_MODEL' && model.baseModelDetails?.checkpointFormat !== 'HUB') {
    throw failedPrecondition(`${name} has checkpointFormat ${model.baseModelDetails?.checkpointFormat ?? 'CHECKPOINT_FORMAT_UNSPECIFIED'}; uploaded base models are HUB checkpoints`, { reason: 'MODEL_KIND' });
  }
  if (stored.length > 0) throw failedPrecondition(`${name} is READY with its uploaded files, which do not change; upload to a new model`, { reason: 'MODEL_STATE' });
  assertTransition(modelStateMachine, model.state ?? 'STATE_UNSPECIFIED', 'UPLOADING');
}


 
async function* emptyChunks(): AsyncIterable<Uint8Array> {}

/** Writes what validation learned onto the model, leaving what the caller gave. */
function applyFacts(model: Model, facts: ModelUploadFacts): void {
  const details = model.baseModelDetails as (JsonObject & NonNullable<Model['baseModelDetails']>) | undefined;
  if (details) {
    if (details.parameterCount === undefined && facts.parameterCount !== undefined) details.parameterCount = facts.parameterCount.toString();
    if ((details.defaultPrecision === undefined || details.defaultPrecision === 'PRECISION_UNSPECIFIED') && facts.precision) details.defaultPrecision = facts.precision;
    if ((details.modelType === undefined || details.modelType === '') && facts.modelType) details.modelType = facts.modelType;
  }
  if (model.peftDetails && facts.modelType) model.peftDetails.baseModelType = facts.modelType;
}
