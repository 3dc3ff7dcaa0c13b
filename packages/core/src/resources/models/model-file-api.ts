import { customMethod, customMethodRoutes } from '../../api/custom-method.js';
import { queryFlag } from '../../api/query.js';
import { emptySchema } from '../../api/resource-routes.js';
import { isStreamedRequestBody, type QueryParamSpec, type RouteRequest, type RouteSpec } from '../../api/route-spec.js';
import type { JsonSchema } from '../../validation/schema-validator.js';
import { signedFileQuery, signedFileRequestOf } from '../../api/signed-file-request.js';
import type { SignedMethod } from '../common/signed-file-urls.js';
import { modelDefinition } from './model-definition.js';
import type { ModelFileService } from './model-file-service.js';

const signedUrlsSchema: JsonSchema = {
  type: 'object',
  properties: { filenameToSignedUrls: { type: 'object', additionalProperties: { type: 'string' } } },
};

/** The service answers URLs relative to the gateway; the client gets them under the origin it called. */
const absolute = (baseUrl: string, urls: Record<string, string>) =>
  Object.fromEntries(Object.entries(urls).map(([file, path]) => [file, `${baseUrl}${path}`]));

const validateQuery: readonly QueryParamSpec[] = [
  { name: 'skipHfConfigValidation', type: 'boolean', description: 'Do not require or check config.json.' },
  { name: 'trustRemoteCode', type: 'boolean', description: 'Accepted for compatibility; Berth never runs code from uploaded files.' },
  { name: 'configOnly', type: 'boolean', description: 'Check the config and the file headers but not tensor names.' },
];

const readMaskQuery: readonly QueryParamSpec[] = [
  { name: 'readMask', type: 'string', description: 'Accepted for compatibility; the answer always holds filenameToSignedUrls.' },
];

/** `:getUploadEndpoint` (POST), `:validateUpload` (GET), `:getDownloadEndpoint` (GET) on models. */
const modelFileMethods = [
  customMethod<ModelFileService>({
    verb: 'getUploadEndpoint', operationId: 'getModelUploadEndpoint',
    summary: 'Announce model files with their sizes (filenameToSize) and get one signed upload URL per file: PUT the bytes there',
    permission: 'models.update', bodyCheckedBy: 'service', response: signedUrlsSchema,
    requestBody: {
      type: 'object',
      properties: {
        filenameToSize: { type: 'object', additionalProperties: { type: 'string' }, description: 'File name (relative path) → size in bytes.' },
        enableResumableUpload: { type: 'boolean', description: 'Accepted; the URLs always take one PUT.' },
        readMask: { type: 'string' },
      },
      required: ['filenameToSize'],
    },
    run: async (files, ctx, name, body, r) => ({ filenameToSignedUrls: absolute(r.baseUrl, (await files.getUploadEndpoint(ctx, name, body)).filenameToSignedUrls) }),
  }),
  customMethod<ModelFileService>({
    method: 'GET', verb: 'validateUpload', operationId: 'validateModelUpload',
    summary: 'Check the uploaded files (config, safetensors headers, adapter config) and mark the model READY; on failure the model keeps a status naming the file',
    permission: 'models.update', query: validateQuery,
    run: (files, ctx, name, _body, r) => files.validateUpload(ctx, name, {
      skipConfig: queryFlag(r.query, 'skipHfConfigValidation'),
      configOnly: queryFlag(r.query, 'configOnly'),
    }),
  }),
  customMethod<ModelFileService>({
    method: 'GET', verb: 'getDownloadEndpoint', operationId: 'getModelDownloadEndpoint',
    summary: 'Get one signed download URL per file of a READY model with uploaded files (GET each URL)',
    permission: 'models.get', query: readMaskQuery, response: signedUrlsSchema,
    run: async (files, ctx, name, _body, r) => ({ filenameToSignedUrls: absolute(r.baseUrl, (await files.getDownloadEndpoint(ctx, name)).filenameToSignedUrls) }),
  }),
];

const signedRequest = (r: RouteRequest, method: SignedMethod) =>
  signedFileRequestOf(r, `accounts/${r.params.account_id}/models/${r.params.model_id}`, r.params.filename!, method);

/**
 * The file URLs `:getUploadEndpoint` and `:getDownloadEndpoint` hand out: no bearer key (the signature is
 * the credential); the upload streams its body to the store, the download streams the stored bytes.
 * A file name with folders travels percent-encoded in the one `{filename}` segment (`tokenizer%2Fvocab.json`).
 */
function signedFileRoutes(files: ModelFileService): RouteSpec[] {
  const path = '/v1/accounts/{account_id}/models/{model_id}/files/{filename}';
  const signedUrl = { maxBodyBytes: files.maxFileBytes, streamed: true };
  return [
    {
      method: 'PUT', path, tag: 'Models', operationId: 'uploadModelFile', summary: 'Upload a model file to its signed URL',
      query: signedFileQuery, response: emptySchema, signedUrl,
      handle: async (r) => {
        await files.putFile(r.ctx, signedRequest(r, 'PUT'), isStreamedRequestBody(r.body) ? r.body : undefined, r.contentType ?? 'application/octet-stream');
        return {};
      },
    },
    {
      method: 'GET', path, tag: 'Models', operationId: 'downloadModelFile', summary: 'Download a model file from its signed URL',
      query: signedFileQuery, response: emptySchema, signedUrl,
      handle: (r) => files.downloadFile(r.ctx, signedRequest(r, 'GET'), { range: r.range, ifRange: r.ifRange }),
    },
  ];
}

/** Every route of the model file flow: the custom methods on models and the signed file URLs. */
export function modelFileRoutes(files: ModelFileService): RouteSpec[] {
  return [...customMethodRoutes({ definition: modelDefinition, tag: 'Models' }, modelFileMethods, files), ...signedFileRoutes(files)];
}
