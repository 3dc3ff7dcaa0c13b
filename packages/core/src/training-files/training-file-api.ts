import { emptySchema } from '../api/resource-routes.js';
import { isStreamedRequestBody, StreamAnswer, type RouteRequest, type RouteSpec } from '../api/route-spec.js';
import { signedFileQuery, signedFileRequestOf } from '../api/signed-file-request.js';
import type { SignedMethod } from '../resources/common/signed-file-urls.js';
import type { TrainingFiles } from './training-files.js';

const signedRequest = (r: RouteRequest, method: SignedMethod) =>
  signedFileRequestOf(r, `accounts/${r.params.account_id}/reinforcementFineTuningJobs/${r.params.job_id}`, r.params.filename!, method);

/**
 * The signed URLs through which a trainer outside the gateway (an accelerator trainer's Kubernetes Job) reads
 * a training step's input and the checkpoint it starts from, and writes the checkpoint and metrics it makes.
 * No bearer key: the signature is the credential. A path with folders travels percent-encoded in the one
 * `{filename}` segment (`steps%2F3%2Fadapter_model.safetensors`).
 */
export function trainingFileRoutes(files: TrainingFiles): RouteSpec[] {
  const path = '/v1/accounts/{account_id}/reinforcementFineTuningJobs/{job_id}/files/{filename}';
  const signedUrl = { maxBodyBytes: files.maxFileBytes, streamed: true };
  return [
    {
      method: 'PUT', path, tag: 'Reinforcement fine-tuning jobs', operationId: 'uploadTrainingFile',
      summary: 'Upload a training step file (checkpoint, metrics) to its signed URL',
      query: signedFileQuery, response: emptySchema, signedUrl,
      handle: async (r) => {
        await files.putFile(r.ctx, signedRequest(r, 'PUT'), isStreamedRequestBody(r.body) ? r.body : undefined, r.contentType ?? 'application/octet-stream');
        return {};
      },
    },
    {
      method: 'GET', path, tag: 'Reinforcement fine-tuning jobs', operationId: 'downloadTrainingFile',
      summary: 'Download a training step file (input, starting checkpoint) from its signed URL',
      query: signedFileQuery, response: emptySchema, signedUrl,
      handle: async (r) => {
        const file = await files.getFile(r.ctx, signedRequest(r, 'GET'));
        return new StreamAnswer(file.body, file.contentType, file.size);
      },
    },
  ];
}
