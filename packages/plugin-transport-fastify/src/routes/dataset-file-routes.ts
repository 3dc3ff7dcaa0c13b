import type { FastifyInstance } from 'fastify';
import { invalidArgument, systemContext, type DatasetFileService, type JsonSchema, type SignedMethod } from '@berth/core';
import type { RouteRequest, RouteSpec } from '../route-spec.js';
import { emptySchema } from './resource-routes.js';

const signedUrlsSchema: JsonSchema = {
  type: 'object',
  properties: { filenameToSignedUrls: { type: 'object', additionalProperties: { type: 'string' } } },
};

const datasetName = (r: RouteRequest) => `accounts/${r.params.account_id}/datasets/${r.params.dataset_id}`;
const absolute = (baseUrl: string, urls: Record<string, string>) =>
  Object.fromEntries(Object.entries(urls).map(([file, path]) => [file, `${baseUrl}${path}`]));

/** `:getUploadEndpoint`, `:validateUpload`, `:getDownloadEndpoint` on datasets. */
export function datasetFileRoutes(files: DatasetFileService): RouteSpec[] {
  const base = '/v1/accounts/{account_id}/datasets/{dataset_id}';
  return [
    {
      method: 'POST', path: `${base}:getUploadEndpoint`, tag: 'Datasets', operationId: 'getDatasetUploadEndpoint',
      summary: 'Announce files and get signed upload URLs (PUT the bytes to each URL)',
      requestBody: { type: 'object', properties: { filenameToSize: { type: 'object', additionalProperties: { type: 'string' } } } },
      response: signedUrlsSchema, permission: 'datasets.update',
      handle: async (r) => ({ filenameToSignedUrls: absolute(r.baseUrl, (await files.getUploadEndpoint(r.ctx, datasetName(r), r.body)).filenameToSignedUrls) }),
    },
    {
      method: 'POST', path: `${base}:validateUpload`, tag: 'Datasets', operationId: 'validateDatasetUpload',
      summary: 'Check the uploaded files, count examples and mark the dataset READY', requestBody: emptySchema, response: emptySchema,
      permission: 'datasets.update',
      handle: (r) => files.validateUpload(r.ctx, datasetName(r), r.body),
    },
    {
      method: 'POST', path: `${base}:getDownloadEndpoint`, tag: 'Datasets', operationId: 'getDatasetDownloadEndpoint',
      summary: 'Get signed download URLs of a READY dataset', requestBody: emptySchema, response: signedUrlsSchema,
      permission: 'datasets.get',
      handle: async (r) => ({ filenameToSignedUrls: absolute(r.baseUrl, (await files.getDownloadEndpoint(r.ctx, datasetName(r), r.body)).filenameToSignedUrls) }),
    },
  ];
}

interface FileParams {
  account_id: string;
  dataset_id: string;
  filename: string;
}

function signedRequest(params: FileParams, query: Record<string, unknown>, method: SignedMethod) {
  const text = (name: string) => {
    const value = query[name];
    if (typeof value !== 'string' || value === '') throw invalidArgument(`the file URL lacks its ${name} parameter`);
    return value;
  };
  if (text('method') !== method) throw invalidArgument(`this URL is for ${text('method')}, not ${method}`);
  return { dataset: `accounts/${params.account_id}/datasets/${params.dataset_id}`, filename: params.filename, method, expires: text('expires'), signature: text('signature') };
}

/**
 * The signed file URLs themselves: no bearer key, the signature is the credential. Registered in their
 * own encapsulated context, which accepts any body as bytes.
 */
export async function registerSignedFileRoutes(app: FastifyInstance, options: { files: DatasetFileService }): Promise<void> {
  app.removeAllContentTypeParsers();
  // The largest file the dataset service accepts; it checks the announced size itself as well.
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: options.files.maxFileBytes }, (_req, body, done) => done(null, body));
  const path = '/v1/accounts/:account_id/datasets/:dataset_id/files/:filename';
  app.put(path, async (request, reply) => {
    const body = request.body;
    if (!Buffer.isBuffer(body)) throw invalidArgument('the upload has no body');
    const contentType = request.headers['content-type'] ?? 'application/octet-stream';
    await options.files.putFile(systemContext('upload'), signedRequest(request.params as FileParams, request.query as Record<string, unknown>, 'PUT'), body, contentType);
    return reply.header('x-request-id', request.id).send({});
  });
  app.get(path, async (request, reply) => {
    const file = await options.files.getFile(systemContext('download'), signedRequest(request.params as FileParams, request.query as Record<string, unknown>, 'GET'));
    return reply.header('x-request-id', request.id).type(file.contentType).send(Buffer.from(file.bytes));
  });
}
