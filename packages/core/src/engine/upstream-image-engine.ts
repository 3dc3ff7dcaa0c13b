import { Agent, request as undiciRequest } from 'undici';
import { Code } from '../errors/code.js';
import { GatewayError, invalidArgument, isGatewayError, unavailable } from '../errors/gateway-error.js';
import type { GeneratedImage, ImageEngine, ImageGenerationRequest } from '../ports/image-engine.js';

/** Options of the client of an upstream image server. */
export interface UpstreamImageEngineOptions {
  /** Base URL of the image server, e.g. `http://images.berth.svc:8000` (an operator's setting, not a user's). */
  readonly url: string;
  /** Sent as `Authorization: Bearer <apiKey>` when set. */
  readonly apiKey?: string;
  /** Longest wait for one image, ms. Default 120,000. */
  readonly timeoutMs?: number;
  /** Largest image accepted, bytes. Default 64 MiB. */
  readonly maxImageBytes?: number;
}

/** The JSON body the upstream server receives on `POST {url}/v1/images/generations`. */
export function upstreamRequestBody(request: ImageGenerationRequest): Record<string, unknown> {
  return {
    model: request.model,
    role: request.role,
    prompt: request.prompt,
    width: request.width,
    height: request.height,
    seed: request.seed,
    guidance_scale: request.guidanceScale,
    num_inference_steps: request.steps,
    output_format: request.format,
    prompt_upsampling: request.promptUpsampling ?? false,
    input_image: request.inputImage ? Buffer.from(request.inputImage.bytes).toString('base64') : null,
  };
}

/**
 * The image engine of real accelerators: a client of an image server running on them. It posts the
 * checked request as JSON to `{url}/v1/images/generations` and expects the image's bytes back
 * (`Content-Type: image/png` or `image/jpeg`, the requested format). The URL is the operator's (plugin
 * options), so it is called directly, not through the guarded egress client used for users' URLs.
 * Errors: the server's 4xx is INVALID_ARGUMENT with its message; 5xx, a refused connection or a wrong
 * answer is UNAVAILABLE; the timeout is DEADLINE_EXCEEDED.
 */
export function upstreamImageEngine(options: UpstreamImageEngineOptions): ImageEngine {
  const base = new URL(options.url);
  if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new Error(`image server URL "${options.url}" must be http or https`);
  const endpoint = new URL('v1/images/generations', base.href.endsWith('/') ? base : `${base.href}/`);
  const timeoutMs = options.timeoutMs ?? 120_000;
  const maxImageBytes = options.maxImageBytes ?? 64 * 1024 * 1024;
  const dispatcher = new Agent({ headersTimeout: timeoutMs, bodyTimeout: timeoutMs, connectTimeout: 10_000 });
  return {
    name: `upstream ${base.origin}`,
    async generate(ctx, request): Promise<GeneratedImage> {
      const signals = [AbortSignal.timeout(timeoutMs), ...(ctx.signal ? [ctx.signal] : [])];
      const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'image/png, image/jpeg' };
      if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
      try {
        const answer = await undiciRequest(endpoint, {
          method: 'POST', headers, body: JSON.stringify(upstreamRequestBody(request)), dispatcher, signal: AbortSignal.any(signals),
        });
        const chunks: Buffer[] = [];
        let size = 0;
        for await (const chunk of answer.body) {
          size += (chunk as Buffer).byteLength;
          if (size > maxImageBytes) {
            answer.body.destroy();
            throw unavailable(`the image server answered more than ${maxImageBytes} bytes`);
          }
          chunks.push(chunk as Buffer);
        }
        const body = Buffer.concat(chunks);
        const contentType = String(answer.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
        if (answer.statusCode >= 400 && answer.statusCode < 500) {
          throw invalidArgument(`the image server refused the request: ${body.toString('utf8').slice(0, 500)}`);
        }
        if (answer.statusCode !== 200) throw unavailable(`the image server answered HTTP ${answer.statusCode}`);
        const expected = request.format === 'png' ? 'image/png' : 'image/jpeg';
        if (contentType !== expected) throw unavailable(`the image server answered ${contentType || 'no content type'}, expected ${expected}`);
        return { bytes: new Uint8Array(body.buffer, body.byteOffset, body.byteLength), contentType, width: request.width, height: request.height };
      } catch (error) {
        if (isGatewayError(error)) throw error;
        if (ctx.signal?.aborted) throw new GatewayError(Code.CANCELLED, 'the image request was cancelled');
        if (signals[0]!.aborted) throw new GatewayError(Code.DEADLINE_EXCEEDED, `the image server took longer than ${timeoutMs} ms`);
        throw unavailable(`the image server at ${base.origin} cannot be reached`, { cause: error });
      }
    },
    close: () => dispatcher.close(),
  };
}
