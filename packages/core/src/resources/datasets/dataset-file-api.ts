import { customMethod, customMethodRoutes } from '../../api/custom-method.js';
import { emptySchema } from '../../api/resource-routes.js';
import { isMultipartFileBody, isStreamedRequestBody, type RouteRequest, type RouteSpec } from '../../api/route-spec.js';
import { invalidArgument } from '../../errors/index.js';
import type { JsonSchema } from '../../validation/schema-validator.js';
import { datasetDefinition } from './dataset-definition.js';
import { signedFileQuery, signedFileRequestOf } from '../../api/signed-file-request.js';
import type { SignedFileRequest, SignedMethod } from '../common/signed-file-urls.js';
import type { DatasetFileService } from './dataset-files.js';

const signedUrlsSchema: JsonSchema = {
  type: 'object',
  properties: { filenameToSignedUrls: { type: 'object', additionalProperties: { type: 'string' } } },
};

/** The service answers URLs relative to the gateway; the client gets them under the origin it called. */
const absolute = (baseUrl: string, urls: Record<string, string>) =>
  Object.fromEntries(Object.entries(urls).map(([file, path]) => [file, `${baseUrl}${path}`]));

/** `:getUploadEndpoint`, `:validateUpload`, `:getDownloadEndpoint` on datasets (the service checks the bodies). */
const datasetFileMethods = [
  customMethod<DatasetFileService>({
    verb: 'getUploadEndpoint', operationId: 'getDatasetUploadEndpoint', summary: 'Announce files and get signed upload URLs (PUT the bytes to each URL)',
    permission: 'datasets.update', bodyCheckedBy: 'service', response: signedUrlsSchema,
    requestBody: { type: 'object', properties: { filenameToSize: { type: 'object', additionalProperties: { type: 'string' } } } },
    run: async (files, ctx, name, body, r) => ({ filenameToSignedUrls: absolute(r.baseUrl, (await files.getUploadEndpoint(ctx, name, body)).filenameToSignedUrls) }),
  }),
  customMethod<DatasetFileService>({
    verb: 'validateUpload', operationId: 'validateDatasetUpload', summary: 'Check the uploaded files, count examples and mark the dataset READY',
    permission: 'datasets.update', bodyCheckedBy: 'service', run: (files, ctx, name, body) => files.validateUpload(ctx, name, body),
  }),
  customMethod<DatasetFileService>({
    verb: 'getDownloadEndpoint', operationId: 'getDatasetDownloadEndpoint', summary: 'Get signed download URLs of a READY dataset',
    permission: 'datasets.get', bodyCheckedBy: 'service', response: signedUrlsSchema,
    run: async (files, ctx, name, body, r) => ({ filenameToSignedUrls: absolute(r.baseUrl, (await files.getDownloadEndpoint(ctx, name, body)).filenameToSignedUrls) }),
  }),
];

const signedQuery = signedFileQuery;

/** The signature parameters of a file URL, for the service to verify. */
function signedRequest(r: RouteRequest, method: SignedMethod): SignedFileRequest {
  return signedFileRequestOf(r, `accounts/${r.params.account_id}/datasets/${r.params.dataset_id}`, r.params.filename!, method);
}

/**
 * The file URLs `:getUploadEndpoint` and `:getDownloadEndpoint` hand out (`DatasetFileService.signedUrl`):
 * no bearer key, the signature is the credential; the upload's body is the file's bytes.
 */
function signedFileRoutes(files: DatasetFileService): RouteSpec[] {
  const path = '/v1/accounts/{account_id}/datasets/{dataset_id}/files/{filename}';
  // The largest file the service accepts; it checks the announced size itself as well.
  const signedUrl = { maxBodyBytes: files.maxFileBytes, streamed: true };
  return [
    {
      method: 'PUT', path, tag: 'Datasets', operationId: 'uploadDatasetFile', summary: 'Upload a file to its signed URL',
      query: signedQuery, response: emptySchema, signedUrl,
      handle: async (r) => {
        if (!isStreamedRequestBody(r.body)) throw invalidArgument('the upload has no body');
        await files.putFile(r.ctx, signedRequest(r, 'PUT'), r.body, r.contentType ?? 'application/octet-stream');
        return {};
      },
    },
    {
      method: 'GET', path, tag: 'Datasets', operationId: 'downloadDatasetFile', summary: 'Download a file from its signed URL',
      query: signedQuery, response: emptySchema, signedUrl,
      handle: (r) => files.downloadFile(r.ctx, signedRequest(r, 'GET'), { range: r.range, ifRange: r.ifRange }),
    },
  ];
}

/**
 * `:upload`: one file in the multipart/form-data field `file`, streamed to the dataset (the reference
 * API's direct upload, what its client libraries call); answers `{filenameToSize}`.
 */
function directUploadRoute(files: DatasetFileService): RouteSpec {
  return {
    method: 'POST', path: '/v1/accounts/{account_id}/datasets/{dataset_id}:upload', tag: 'Datasets', operationId: 'uploadDatasetFiles',
    summary: 'Upload one dataset file as multipart/form-data (field "file"), check it and mark the dataset READY',
    permission: 'datasets.update', multipartFile: { field: 'file', maxFileBytes: files.maxFileBytes },
    response: { type: 'object', properties: { filenameToSize: { type: 'object', additionalProperties: { type: 'string' } } } },
    handle: async (r) => {
      if (!isMultipartFileBody(r.body)) throw invalidArgument('Content-Type must be multipart/form-data with the file in field "file"', { reason: 'UNSUPPORTED_MEDIA_TYPE' });
      return files.uploadFile(r.ctx, `accounts/${r.params.account_id}/datasets/${r.params.dataset_id}`, r.body);
    },
  };
}

/** Every route of the dataset file flow: the custom methods on datasets, `:upload` and the signed file URLs. */
export function datasetFileRoutes(files: DatasetFileService): RouteSpec[] {
  return [
    ...customMethodRoutes({ definition: datasetDefinition, tag: 'Datasets' }, datasetFileMethods, files),
    directUploadRoute(files),
    ...signedFileRoutes(files),
  ];
}
