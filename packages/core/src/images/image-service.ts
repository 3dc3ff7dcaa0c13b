import type { JsonObject } from '../contracts/json.js';
import type { RequestContext } from '../contracts/request-context.js';
import { authorize } from '../auth/permissions.js';
import { Code } from '../errors/code.js';
import { invalidArgument, notFound, toGatewayError, unauthenticated, unavailable } from '../errors/gateway-error.js';
import type { GatewayConfig } from '../kernel/config.js';
import type { Clock } from '../ports/clock.js';
import type { EgressHttp } from '../ports/egress-http.js';
import type { IdGenerator } from '../ports/id-generator.js';
import type { GeneratedImage, ImageBytes, ImageEngine, ImageFormat, SafetyChecker, SafetyVerdict } from '../ports/image-engine.js';
import type { ClaimedJob, Storage } from '../ports/storage.js';
import type { WebhookOutbox } from '../ports/webhook-outbox.js';
import { checkEgressUrl } from '../outbound/egress-url.js';
import { readString } from '../responses/request-values.js';
import { blankImage, contentTypeOf, inspectImage } from '../engine/image-codec.js';
import type { QueueJobContext } from '../workers/queue-handler.js';
import type { QueueWakeups } from '../workers/queue-wakeups.js';
import { kontextSize, sizeOfAspectRatio, type ImageSize } from './aspect-ratio.js';
import { textToImageForm, type TextToImageForm } from './image-accept.js';
import { imageModelId, imageModelRoleOf, type ImageModelRole } from './image-models.js';
import {
  imageRequestName, imageRequestOf, taskNotFound, type ImageRequestRecord, type ImageRequestStatus,
} from './image-request-record.js';
import { imageBody } from './image-request-values.js';
import { parseKontextRequest, type InputImageSource } from './kontext-request.js';
import { parseTextToImageRequest } from './text-to-image.js';

/** The durable queue asynchronous image requests run on. */
export const imageQueue = 'images.generate';
/** The queue that removes finished requests and their images once `imageRetentionMs` has passed. */
export const imagePurgeQueue = 'images.purge';
/** Largest input image accepted, bytes (from a URL or decoded from base64). */
export const maxInputImageBytes = 20 * 1024 * 1024;
/** Longest wait for an input image URL, ms. */
const inputImageTimeoutMs = 30_000;
/** Attempts of one asynchronous request when the engine is unavailable (then it ends in Error). */
const maxAttempts = 3;
/** Denoising steps of the asynchronous models (not a request field). */
const kontextSteps: Readonly<Record<ImageModelRole, number>> = { text_to_image: 4, kontext_pro: 28, kontext_max: 50 };
const kontextGuidance = 3.5;
/** text_to_image has no safety_tolerance field: it is checked at the endpoint's default. */
const defaultTolerance = 2;

/** What text_to_image made, before the transport picks the body form. */
export interface TextToImageAnswer {
  readonly id: string;
  readonly form: TextToImageForm;
  readonly image: ImageBytes;
  readonly seed: number;
  readonly finishReason: 'SUCCESS' | 'CONTENT_FILTERED';
}

/** get_result's answer (api-facts.md): `result` is always present, null until Ready. */
export interface ImageResult {
  readonly id: string;
  readonly status: ImageRequestStatus | typeof taskNotFound;
  readonly result: JsonObject | null;
  readonly progress: number | null;
  readonly details: JsonObject | null;
}

export interface ImageServiceDependencies {
  readonly config: GatewayConfig;
  /** The runtimes' engines; the first is used. */
  readonly engines: readonly ImageEngine[];
  readonly safety: SafetyChecker;
  readonly storage: Storage;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly egress: EgressHttp;
  /** Where finished requests with a webhook_url record their webhook; absent without `webhooks()`. */
  readonly webhooks?: WebhookOutbox | undefined;
  /** Woken after a request was queued, so this process's queue workers start it at once (not at their next poll). */
  readonly queueWakeups?: QueueWakeups | undefined;
}

/** The webhook event type of each final status. */
export const imageWebhookTypes: Readonly<Record<Exclude<ImageRequestStatus, 'Pending'>, string>> = {
  Ready: 'image.ready',
  Error: 'image.error',
  'Request Moderated': 'image.moderated',
  'Content Moderated': 'image.moderated',
};

const REQUEST_ID = /^[A-Za-z0-9-]{1,64}$/;
const retryable = new Set<Code>([Code.UNAVAILABLE, Code.DEADLINE_EXCEEDED, Code.ABORTED, Code.RESOURCE_EXHAUSTED]);

function verdictDetails(verdict: SafetyVerdict): JsonObject | null {
  return verdict.allowed ? null : { moderation_reasons: [...verdict.reasons] };
}

/** A ratio clamped to 21:9…9:21 (an input image's shape when the request names no aspect_ratio). */
function clampedSize(width: number, height: number): ImageSize {
  const ratio = Math.min(21 / 9, Math.max(9 / 21, width / height));
  return sizeOfAspectRatio({ w: ratio, h: 1 });
}

/**
 * Image generation (spec endpoints 11 and 12): text_to_image answered at once, asynchronous requests
 * stored and run on the durable queue ({@link imageQueue}), their results and images. Callers need
 * `inference.use` on their own account; requests belong to the caller's account, so another account's
 * request id is `Task not found`.
 */
export class ImageService {
  /** Paths of the image endpoints under the configured system account. */
  readonly paths: { readonly models: string; readonly textToImage: string };

  constructor(private readonly deps: ImageServiceDependencies) {
    const models = `/inference/v1/workflows/accounts/${deps.config.systemAccountId}/models`;
    this.paths = { models, textToImage: `${models}/${imageModelId(deps.config.imageModelIds, 'text_to_image')}/text_to_image` };
  }

  /** The asynchronous models' ids. */
  get kontextModels(): readonly string[] {
    const ids = this.deps.config.imageModelIds;
    return [imageModelId(ids, 'kontext_pro'), imageModelId(ids, 'kontext_max')];
  }

  /**
   * Generates one image now. The form follows `accept` (see `textToImageForm`); JSON carries PNG.
   * A refused prompt or output gives a black image with finishReason CONTENT_FILTERED.
   * @throws INVALID_ARGUMENT for a bad body or Accept; UNAVAILABLE when no engine is installed or it fails.
   */
  async textToImage(ctx: RequestContext, body: unknown, accept: string | undefined): Promise<TextToImageAnswer> {
    this.callerAccount(ctx);
    const form = textToImageForm(accept);
    const request = parseTextToImageRequest(imageBody(body));
    const format: ImageFormat = form === 'image/jpeg' ? 'jpeg' : 'png';
    const { width, height } = request.size;
    const review = { prompt: request.prompt, safetyTolerance: defaultTolerance, hasInputImage: false };
    let verdict = await this.deps.safety.reviewPrompt(ctx, review);
    let image: ImageBytes | undefined;
    if (verdict.allowed) {
      const generated = await this.engine().generate(ctx, {
        role: 'text_to_image', model: imageModelId(this.deps.config.imageModelIds, 'text_to_image'), prompt: request.prompt,
        width, height, seed: request.seed, guidanceScale: request.guidanceScale, steps: request.steps, format,
      });
      verdict = await this.deps.safety.reviewImage(ctx, { ...review, image: generated });
      image = generated;
    }
    if (!verdict.allowed || image === undefined) image = { bytes: await blankImage(width, height, format), contentType: contentTypeOf(format) };
    return { id: this.deps.ids.requestId(), form, image, seed: request.seed, finishReason: verdict.allowed ? 'SUCCESS' : 'CONTENT_FILTERED' };
  }

  /**
   * Accepts an asynchronous generation or edit: checks the body, fetches or decodes the input image,
   * stores the request and queues its work in one transaction, and answers its id at once.
   * @throws INVALID_ARGUMENT for a bad body, an unknown model or an unusable input image (the
   *   image surface answers 400 `{error_message}`).
   */
  async submit(ctx: RequestContext, model: string, body: unknown, origin: string): Promise<{ request_id: string }> {
    const accountId = this.callerAccount(ctx);
    const role = this.kontextRole(model);
    const request = parseKontextRequest(imageBody(body));
    if (request.webhookUrl !== undefined) this.checkWebhook(request.webhookUrl, request.webhookSecret);
    let size = request.aspectRatio === undefined ? undefined : kontextSize(request.aspectRatio);
    const id = this.deps.ids.requestId();
    let inputImageKey: string | null = null;
    if (request.inputImage) {
      const bytes = await this.inputImageBytes(ctx, request.inputImage);
      const info = await inspectImage(bytes);
      size ??= clampedSize(info.width, info.height);
      inputImageKey = `image-inputs/${accountId}/${id}`;
      await this.deps.storage.blobs.put(ctx, inputImageKey, bytes, info.contentType);
    }
    size ??= kontextSize('1:1');
    const record: ImageRequestRecord = {
      id, accountId, model, role, status: 'Pending', prompt: request.prompt, seed: request.seed, width: size.width, height: size.height,
      outputFormat: request.outputFormat, safetyTolerance: request.safetyTolerance, promptUpsampling: request.promptUpsampling, inputImageKey,
      webhookUrl: request.webhookUrl ?? null, webhookSecret: request.webhookSecret ?? null, origin,
      createTime: this.deps.clock.now().toISOString(), startTime: null, endTime: null, progress: 0, details: null, sampleKey: null,
    };
    const name = imageRequestName(accountId, id);
    await this.deps.storage.transaction(ctx, async (tx) => {
      await tx.resources.create(ctx, name, record);
      await tx.queue.enqueue(ctx, { queue: imageQueue, payload: { name }, maxAttempts });
    });
    this.deps.queueWakeups?.wake();
    return { request_id: id };
  }

  /**
   * The state of an asynchronous request of the caller's account: `Task not found` for an id it does
   * not have (another account's included), else its status, and the sample URL once Ready.
   * @throws INVALID_ARGUMENT when the body has no `id` or the model is not an asynchronous one.
   */
  async getResult(ctx: RequestContext, model: string, body: unknown): Promise<ImageResult> {
    const accountId = this.callerAccount(ctx);
    this.kontextRole(model);
    const id = readString(imageBody(body), 'id');
    if (id === null || id === '') throw invalidArgument('id is required', { field: 'id' });
    const record = await this.find(ctx, accountId, id);
    return record ? this.resultOf(record) : { id, status: taskNotFound, result: null, progress: null, details: null };
  }

  /**
   * The image of a Ready request of the caller's account (what `result.sample` points to).
   * @throws NOT_FOUND when the caller has no such request or it is not Ready.
   */
  async sample(ctx: RequestContext, model: string, id: string): Promise<ImageBytes> {
    const accountId = this.callerAccount(ctx);
    this.kontextRole(model);
    const record = await this.find(ctx, accountId, id);
    const blob = record?.sampleKey ? await this.deps.storage.blobs.get(ctx, record.sampleKey) : undefined;
    if (!blob) throw notFound(`image of request ${id}`);
    return { bytes: blob.bytes, contentType: blob.contentType };
  }

  /** get_result's body for a stored request. */
  resultOf(record: ImageRequestRecord): ImageResult {
    const ready = record.status === 'Ready';
    const result: JsonObject | null = ready
      ? {
          sample: `${record.origin}${this.paths.models}/${record.model}/results/${record.id}`,
          prompt: record.prompt,
          seed: record.seed,
          start_time: record.startTime,
          end_time: record.endTime,
          duration: record.startTime && record.endTime ? (Date.parse(record.endTime) - Date.parse(record.startTime)) / 1000 : null,
        }
      : null;
    return { id: record.id, status: record.status, result, progress: record.progress, details: record.details };
  }

  /**
   * Runs one queued request (the {@link imageQueue} handler): prompt check, generation, output check,
   * then the result committed with the job's completion. An unavailable engine is retried by the queue
   * and ends in Error on the last attempt; every other failure ends in Error at once.
   */
  async runJob(ctx: QueueJobContext, job: ClaimedJob): Promise<void> {
    const queued = await this.queuedRequest(ctx, job);
    if (!queued || queued.record.status !== 'Pending') return;
    const { name, record } = queued;
    const startTime = this.deps.clock.now().toISOString();
    const finish = async (status: ImageRequestStatus, update: Partial<ImageRequestRecord> = {}): Promise<void> => {
      await ctx.commit(async (tx) => {
        const current = await tx.resources.getForUpdate(ctx, name);
        if (!current || imageRequestOf(current.data).status !== 'Pending') return;
        const next: ImageRequestRecord = { ...record, ...update, status, startTime, endTime: this.deps.clock.now().toISOString(), progress: 1 };
        await tx.resources.update(ctx, name, next, current.etag);
        const purgeAt = new Date(Date.parse(next.endTime!) + this.deps.config.imageRetentionMs);
        await tx.queue.enqueue(ctx, { queue: imagePurgeQueue, payload: { name }, runAt: purgeAt, dedupeKey: name });
        // The webhook is recorded in the transaction of the result: both commit, or neither.
        if (next.webhookUrl !== null && this.deps.webhooks) {
          const { id, status: nextStatus, result, progress, details } = this.resultOf(next);
          await this.deps.webhooks.enqueue(ctx, tx, {
            accountId: next.accountId, url: next.webhookUrl, ...(next.webhookSecret === null ? {} : { secret: next.webhookSecret }),
            type: imageWebhookTypes[status as Exclude<ImageRequestStatus, 'Pending'>], subject: id,
            data: { id, status: nextStatus, result, progress, details },
          });
        }
      });
      if (record.inputImageKey) await this.deps.storage.blobs.delete(ctx, record.inputImageKey);
    };

    const review = { prompt: record.prompt, safetyTolerance: record.safetyTolerance, hasInputImage: record.inputImageKey !== null };
    const promptVerdict = await this.deps.safety.reviewPrompt(ctx, review);
    if (!promptVerdict.allowed) return finish('Request Moderated', { details: verdictDetails(promptVerdict) });
    const input = record.inputImageKey ? await this.deps.storage.blobs.get(ctx, record.inputImageKey) : undefined;
    if (record.inputImageKey && !input) return finish('Error', { details: { error: 'the input image is no longer stored' } });

    let image: GeneratedImage;
    try {
      image = await this.engine().generate(ctx, {
        role: record.role, model: record.model, prompt: record.prompt, width: record.width, height: record.height, seed: record.seed,
        guidanceScale: kontextGuidance, steps: kontextSteps[record.role], format: record.outputFormat,
        promptUpsampling: record.promptUpsampling,
        ...(input ? { inputImage: { bytes: input.bytes, contentType: input.contentType } } : {}),
      });
    } catch (error) {
      const failure = toGatewayError(error);
      if (retryable.has(failure.code) && job.attempt < job.maxAttempts) throw failure;
      return finish('Error', { details: { error: failure.code === Code.INTERNAL ? 'the image could not be generated' : failure.message } });
    }
    const imageVerdict = await this.deps.safety.reviewImage(ctx, { ...review, image });
    if (!imageVerdict.allowed) return finish('Content Moderated', { details: verdictDetails(imageVerdict) });
    const sampleKey = `images/${record.accountId}/${record.id}`;
    await this.deps.storage.blobs.put(ctx, sampleKey, image.bytes, image.contentType);
    return finish('Ready', { sampleKey });
  }

  /**
   * A webhook_url is usable only when webhooks are delivered, and must pass the egress policy as written
   * (scheme, credentials, IP literals) now rather than fail when the result is committed.
   */
  private checkWebhook(url: string, secret: string | undefined): void {
    if (!this.deps.webhooks) {
      throw invalidArgument('webhook_url needs webhook delivery, which this gateway does not run (webhooks() from @berth/plugin-webhooks)', { field: 'webhook_url' });
    }
    try {
      checkEgressUrl(url, { allowLoopback: this.deps.config.allowLoopbackUrls, allowPrivate: this.deps.config.allowPrivateUrls });
    } catch (error) {
      throw invalidArgument(`webhook_url is refused: ${toGatewayError(error).message}`, { field: 'webhook_url', cause: error });
    }
    const encoded = secret?.startsWith('whsec_') ? secret.slice('whsec_'.length) : undefined;
    if (encoded !== undefined && !(encoded.length > 0 && encoded.length % 4 === 0 && /^[A-Za-z0-9+/]+={0,2}$/.test(encoded))) {
      throw invalidArgument('webhook_secret starts with "whsec_" but the rest is not base64', { field: 'webhook_secret' });
    }
  }

  /**
   * Removes a finished request whose retention passed (the {@link imagePurgeQueue} handler): its image
   * first, then the record with the job's completion, so a re-run after a lost lease finds what is left.
   */
  async purge(ctx: QueueJobContext, job: ClaimedJob): Promise<void> {
    const queued = await this.queuedRequest(ctx, job);
    if (!queued || queued.record.status === 'Pending') return;
    const { name, record } = queued;
    for (const key of [record.sampleKey, record.inputImageKey]) if (key) await this.deps.storage.blobs.delete(ctx, key);
    await ctx.commit(async (tx) => {
      const current = await tx.resources.getForUpdate(ctx, name);
      if (current) await tx.resources.delete(ctx, name, current.etag);
    });
  }

  /** The request a job of either queue names (`{name}`), or undefined when it is gone. */
  private async queuedRequest(ctx: RequestContext, job: ClaimedJob): Promise<{ name: string; record: ImageRequestRecord } | undefined> {
    const payload = job.payload;
    const name = typeof payload === 'object' && payload !== null && !Array.isArray(payload) ? payload.name : undefined;
    if (typeof name !== 'string') return undefined;
    const stored = await this.deps.storage.resources.get(ctx, name);
    return stored ? { name, record: imageRequestOf(stored.data) } : undefined;
  }

  private async find(ctx: RequestContext, accountId: string, id: string): Promise<ImageRequestRecord | undefined> {
    if (!REQUEST_ID.test(id)) return undefined;
    const stored = await this.deps.storage.resources.get(ctx, imageRequestName(accountId, id));
    return stored ? imageRequestOf(stored.data) : undefined;
  }

  private callerAccount(ctx: RequestContext): string {
    const principal = ctx.principal;
    if (!principal) throw unauthenticated('image generation needs an authenticated caller');
    authorize(ctx, 'inference.use', { accountId: principal.accountId });
    return principal.accountId;
  }

  private kontextRole(model: string): ImageModelRole {
    const role = imageModelRoleOf(this.deps.config.imageModelIds, model);
    if (role === undefined || role === 'text_to_image') {
      throw invalidArgument(`model "${model}" must be one of ${this.kontextModels.join(', ')}`, { field: 'model' });
    }
    return role;
  }

  private engine(): ImageEngine {
    const engine = this.deps.engines[0];
    if (!engine) throw unavailable('no image engine is installed: add a runtime plugin such as gpuxRuntime()');
    return engine;
  }

  /** The input image's bytes: decoded, or fetched through the guarded egress client (image types only, capped). */
  private async inputImageBytes(ctx: RequestContext, source: InputImageSource): Promise<Uint8Array> {
    const tooLarge = () => invalidArgument(`input_image is larger than ${maxInputImageBytes} bytes`, { field: 'input_image' });
    if (source.kind === 'base64') {
      if (source.bytes.byteLength > maxInputImageBytes) throw tooLarge();
      return source.bytes;
    }
    const answer = await this.deps.egress.request(ctx, source.url, {
      headers: { accept: 'image/png, image/jpeg, image/webp' },
      maxResponseBytes: maxInputImageBytes,
      totalTimeoutMs: inputImageTimeoutMs,
    }).catch((error: unknown) => {
      const failure = toGatewayError(error);
      throw invalidArgument(`input_image URL could not be fetched: ${failure.message}`, { field: 'input_image', cause: failure });
    });
    if (answer.status < 200 || answer.status > 299) throw invalidArgument(`input_image URL answered HTTP ${answer.status}`, { field: 'input_image' });
    const contentType = (answer.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (!contentType.startsWith('image/')) {
      throw invalidArgument(`input_image URL answered ${contentType || 'no content type'}, not an image`, { field: 'input_image' });
    }
    return answer.body;
  }
}
