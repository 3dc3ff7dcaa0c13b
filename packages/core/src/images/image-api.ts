import { BinaryAnswer, type RouteSpec } from '../api/route-spec.js';
import type { JsonSchema } from '../validation/schema-validator.js';
import { textToImageAspectRatios } from './aspect-ratio.js';
import type { ImageService } from './image-service.js';

const tag = 'Images';
const nullable = (type: string) => ({ type: [type, 'null'] });

const textToImageBody: JsonSchema = {
  type: 'object',
  required: ['prompt'],
  additionalProperties: true,
  properties: {
    prompt: { type: 'string' },
    aspect_ratio: { type: 'string', enum: [...textToImageAspectRatios], default: '1:1' },
    guidance_scale: { type: 'number', minimum: 0, maximum: 100, default: 3.5 },
    num_inference_steps: { type: 'integer', minimum: 1, maximum: 50, default: 4 },
    seed: { type: 'integer', minimum: 0, description: '0 means a random seed; the seed used is returned.' },
  },
};

const textToImageAnswer: JsonSchema = {
  type: 'object',
  required: ['id', 'base64', 'finishReason', 'seed'],
  properties: {
    id: { type: 'string' },
    base64: { type: 'array', items: { type: 'string', description: 'data:image/png;base64,…' } },
    finishReason: { type: 'string', enum: ['SUCCESS', 'CONTENT_FILTERED'] },
    seed: { type: 'integer' },
  },
};

const kontextBody: JsonSchema = {
  type: 'object',
  required: ['prompt'],
  additionalProperties: true,
  properties: {
    prompt: { type: 'string' },
    input_image: { ...nullable('string'), description: 'Base64 image or http(s) URL.' },
    seed: nullable('integer'),
    aspect_ratio: { ...nullable('string'), description: 'W:H between 21:9 and 9:21.' },
    output_format: { type: 'string', enum: ['jpeg', 'png'], default: 'png' },
    webhook_url: { ...nullable('string'), minLength: 1, maxLength: 2083 },
    webhook_secret: nullable('string'),
    prompt_upsampling: { type: 'boolean', default: false },
    safety_tolerance: { type: 'integer', minimum: 0, maximum: 6, default: 2, description: 'At most 2 with an input_image.' },
  },
};

const imageResult: JsonSchema = {
  type: 'object',
  required: ['id', 'status', 'result', 'progress', 'details'],
  properties: {
    id: { type: 'string' },
    status: { type: 'string', enum: ['Task not found', 'Pending', 'Request Moderated', 'Content Moderated', 'Ready', 'Error'] },
    result: { type: ['object', 'null'], properties: { sample: { type: 'string', description: 'URL of the image, on this gateway (same credential).' } } },
    progress: nullable('number'),
    details: { type: ['object', 'null'] },
  },
};

/**
 * The image endpoints (spec 11 and 12) under `/inference/v1/workflows/accounts/{system account}/models`:
 * text_to_image (bytes or JSON by `Accept`), the asynchronous submission, `get_result`, and the result
 * image that `result.sample` points to (same bearer credential). Failures answer `{error_message}`.
 */
export function imageRoutes(images: ImageService): RouteSpec[] {
  const { models, textToImage } = images.paths;
  const modelOf = (params: Readonly<Record<string, string>>) => params.model ?? '';
  return [
    {
      method: 'POST', path: textToImage, tag, operationId: 'textToImage', summary: 'Generate an image from text (bytes or JSON, by Accept)',
      requestBody: textToImageBody, response: textToImageAnswer, binaryMediaTypes: ['image/jpeg', 'image/png'],
      handle: async (r) => {
        const answer = await images.textToImage(r.ctx, r.body, r.accept);
        if (answer.form === 'application/json') {
          const data = `data:${answer.image.contentType};base64,${Buffer.from(answer.image.bytes).toString('base64')}`;
          return { id: answer.id, base64: [data], finishReason: answer.finishReason, seed: answer.seed };
        }
        return new BinaryAnswer(answer.image.bytes, answer.image.contentType, { seed: String(answer.seed), 'finish-reason': answer.finishReason });
      },
    },
    {
      method: 'POST', path: `${models}/{model}`, tag, operationId: 'submitImageRequest',
      summary: `Submit an asynchronous generation or edit (${images.kontextModels.join(' or ')})`,
      requestBody: kontextBody, response: { type: 'object', required: ['request_id'], properties: { request_id: { type: 'string' } } },
      handle: (r) => images.submit(r.ctx, modelOf(r.params), r.body, r.baseUrl),
    },
    {
      method: 'POST', path: `${models}/{model}/get_result`, tag, operationId: 'getImageResult', summary: 'State and result of an asynchronous request',
      requestBody: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } }, response: imageResult,
      handle: async (r) => ({ ...(await images.getResult(r.ctx, modelOf(r.params), r.body)) }),
    },
    {
      method: 'GET', path: `${models}/{model}/results/{request_id}`, tag, operationId: 'getImageSample',
      summary: 'The image of a Ready request (result.sample)', response: { type: 'string' }, binaryMediaTypes: ['image/jpeg', 'image/png'],
      handle: async (r) => {
        const image = await images.sample(r.ctx, modelOf(r.params), r.params.request_id ?? '');
        return new BinaryAnswer(image.bytes, image.contentType, { 'cache-control': 'private, max-age=3600' });
      },
    },
  ];
}
