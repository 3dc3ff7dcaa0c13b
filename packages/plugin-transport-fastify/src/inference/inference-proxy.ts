import { once } from 'node:events';
import { Agent, type Dispatcher } from 'undici';
import {
  authorize, Code, GatewayError, inSpan, injectTraceContext, isPlainObject, noTelemetry, SpanKind, tracingEnabled, unavailable,
  silentLogger, type Telemetry, type ChatCompletionCall, type ChatCompletionOutcome, type ChatModelClient, type ChatStreamOutcome, type GatewayLogger,
  type InferenceErrorBody, type JsonObject, type ModelTarget, type Principal, type ReplicaLease, type RequestContext, type ServingDirectory,
} from '@berth/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { clientGone, inferenceContext, type ClientAbort } from './inference-context.js';
import type { InferenceRequest } from './inference-request.js';
import { ModelRewriter, SseModelRewriter } from './model-rewrite.js';
import { SseDataParser } from './sse-data-parser.js';
import { InferenceMeasurement } from './inference-telemetry.js';
import { startSse } from './start-sse.js';
import { isConnectFailure, streamErrorEvent, upstreamErrorAnswer, upstreamFailure } from './upstream-errors.js';

/** Timeouts and limits of the inference proxy. Every wait is bounded, so a request never hangs. */
export interface InferenceProxyOptions {
  /** TCP connect to a replica. Default 5 s. */
  readonly connectTimeoutMs?: number;
  /** From sending the request to the replica's response headers (a non-streaming answer's whole generation). Default 300 s. */
  readonly headersTimeoutMs?: number;
  /** Longest silence between two body chunks of the replica's answer. Default 60 s. */
  readonly bodyIdleTimeoutMs?: number;
  /** Longest wait for a ready replica (on top of the serving directory's own bound). Default 120 s. */
  readonly acquireTimeoutMs?: number;
  /** Largest non-streaming answer accepted from a replica. Default 64 MiB. */
  readonly maxResponseBytes?: number;
  /** Keep-alive connections per replica. Default 128. */
  readonly connectionsPerReplica?: number;
  /**
   * Request bodies larger than this (bytes) go over a connection of their own, closed after the answer
   * (`Connection: close`). A replica that refuses a large body before reading it (413) and then closes
   * its end leaves a pooled connection in a state the next request would inherit (it hung, then 503).
   * Default 1 MiB: larger bodies are rare, and one connection setup is nothing next to their upload.
   */
  readonly keepAliveMaxBodyBytes?: number;
  /**
   * The undici dispatcher to use (shared pool with keep-alive). Default: one Agent per server, closed
   * with it. A host passing its own closes it itself.
   */
  readonly dispatcher?: Dispatcher;
}

interface ResolvedOptions {
  readonly headersMs: number;
  readonly bodyIdleMs: number;
  readonly acquireMs: number;
  readonly maxResponseBytes: number;
  readonly keepAliveMaxBodyBytes: number;
}

/** `http://host:port/prefix` → undici origin and path prefix; cached because replicas are few and long-lived. */
class EndpointCache {
  private readonly cache = new Map<string, { origin: string; prefix: string }>();

  get(endpoint: string): { origin: string; prefix: string } {
    let hit = this.cache.get(endpoint);
    if (!hit) {
      const url = new URL(endpoint);
      hit = { origin: url.origin, prefix: url.pathname.replace(/\/+$/, '') };
      if (this.cache.size > 10_000) this.cache.clear();
      this.cache.set(endpoint, hit);
    }
    return hit;
  }
}

/** What aborts an upstream exchange: the proxy's own client-abort emitter, or a context's AbortSignal. */
type UpstreamSignal = ClientAbort | AbortSignal;

/**
 * Forwards OpenAI-compatible inference calls to a replica leased from the {@link ServingDirectory}:
 * resolve → acquire (sticky on `user`) → undici request with the served model id → answer rewritten back
 * to the client's model name. Streams are piped event by event without buffering, with backpressure; a
 * client disconnect aborts the upstream request; the lease is released exactly once on every path.
 * It is also the Responses API's {@link ChatModelClient}: the same leases, pool and timeouts for the
 * chat completions a response's turns make.
 */
export class InferenceProxy implements ChatModelClient {
  readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly options: ResolvedOptions;
  private readonly endpoints = new EndpointCache();
  /** Whether an OpenTelemetry SDK is registered: each exchange is then a CLIENT span, its `traceparent` sent to the replica. */
  private readonly tracing = tracingEnabled();

  constructor(
    private readonly directory: ServingDirectory,
    options: InferenceProxyOptions = {},
    private readonly logger: GatewayLogger = silentLogger,
    private readonly telemetry: Telemetry = noTelemetry,
  ) {
    this.options = {
      headersMs: options.headersTimeoutMs ?? 300_000,
      bodyIdleMs: options.bodyIdleTimeoutMs ?? 60_000,
      acquireMs: options.acquireTimeoutMs ?? 120_000,
      maxResponseBytes: options.maxResponseBytes ?? 64 * 1024 * 1024,
      keepAliveMaxBodyBytes: options.keepAliveMaxBodyBytes ?? 1024 * 1024,
    };
    this.ownsDispatcher = options.dispatcher === undefined;
    this.dispatcher =
      options.dispatcher ??
      new Agent({
        connections: options.connectionsPerReplica ?? 128,
        keepAliveTimeout: 4_000,
        keepAliveMaxTimeout: 60_000,
        connect: { timeout: options.connectTimeoutMs ?? 5_000 },
      });
  }

  /** Closes the dispatcher if this proxy created it. */
  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
  }

  /** Serves one validated request. Errors thrown before the answer starts are rendered by the server's error handler. */
  async handle(principal: Principal, inference: InferenceRequest, request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const ctx = inferenceContext(request, reply, principal);
    // The caller's role must allow inference at all; access to the model's account (public models from
    // any account) is the directory's call, since only it knows what the name points to.
    authorize(ctx, 'inference.use', { accountId: principal.accountId });
    const target = await this.directory.resolve(ctx, inference.model);
    const measure = this.telemetry.enabled ? new InferenceMeasurement(this.telemetry, target, inference, () => reply.elapsedTime / 1000) : undefined;
    await this.exchange(ctx, ctx.abort, target, inference, (upstream, rewriter) => this.answer(upstream, rewriter, request, reply, ctx.abort, measure));
  }

  /**
   * One non-streaming chat completion for an already resolved target (the Responses API's model turns):
   * lease, send with the served model id, read the whole answer, release. The error of a refused request
   * comes back as the outcome (with the served model id rewritten to the target's model), a failed
   * exchange is thrown (UNAVAILABLE, DEADLINE_EXCEEDED; CANCELLED once `ctx.signal` aborted).
   */
  async complete(ctx: RequestContext, call: ChatCompletionCall): Promise<ChatCompletionOutcome> {
    const outcome = await this.chat(ctx, call, false);
    if (!outcome.ok || 'completion' in outcome) return outcome;
    // The replica streamed although it was not asked to: not an answer this call can use.
    outcome.upstream.body.destroy();
    outcome.release();
    return badAnswer('the model replica streamed an answer that was asked for whole');
  }

  /**
   * The same call streamed (`stream: true`, usage included): chunks as the replica sends them, the lease
   * held until their iteration ends. A replica that answers whole is replayed as one chunk.
   */
  async stream(ctx: RequestContext, call: ChatCompletionCall): Promise<ChatStreamOutcome> {
    const body = { ...call.body, stream: true, stream_options: { include_usage: true } };
    const outcome = await this.chat(ctx, { ...call, body }, true);
    if (!outcome.ok) return outcome;
    if ('completion' in outcome) return { ok: true, chunks: replayed(outcome.completion) };
    return { ok: true, chunks: this.chunksOf(ctx, outcome.upstream, outcome.release) };
  }

  /** One chat call of a {@link ChatModelClient}: the whole answer or its refusal, or an SSE answer handed over with its lease. */
  private chat(ctx: RequestContext, call: ChatCompletionCall, stream: boolean): Promise<
    | ChatCompletionOutcome
    | { readonly ok: true; readonly upstream: Dispatcher.ResponseData; readonly release: () => void }
  > {
    const inference: InferenceRequest = {
      operation: 'chat', model: call.target.model, stream, body: call.body, ...(call.affinityKey !== undefined ? { user: call.affinityKey } : {}),
    };
    return this.exchange(ctx, ctx.signal, call.target, inference, async (upstream, rewriter, handOver) => {
      if (isEventStream(upstream)) return { ok: true, upstream, release: handOver() } as const;
      const body = await this.readAll(upstream, ctx.signal);
      if (upstream.statusCode >= 200 && upstream.statusCode < 300) {
        const completion = parseObject(body);
        return completion ? { ok: true, completion } : badAnswer('the model replica answered with a body that is not a JSON object');
      }
      const rendered = this.refusal(upstream.statusCode, body, rewriter, ctx.requestId);
      return { ok: false, status: rendered.status, error: rendered.body.error };
    });
  }

  /**
   * Leases a replica of `target`, sends `inference` to it and lets `use` read the answer, retrying once on
   * another lease when the replica refused the connection (the request never reached it). The lease goes
   * back when `use` settles, unless `use` took it over (`handOver()` answers the release to call later).
   * Throws CANCELLED once `signal` aborted, UNAVAILABLE or DEADLINE_EXCEEDED when the exchange failed.
   */
  private async exchange<T>(
    ctx: RequestContext, signal: UpstreamSignal | undefined, target: ModelTarget, inference: InferenceRequest,
    use: (upstream: Dispatcher.ResponseData, rewriter: ModelRewriter, handOver: () => () => void) => Promise<T>,
  ): Promise<T> {
    if (!this.tracing) return this.attempts(ctx, signal, target, inference, use);
    const attributes = { 'berth.deployment': target.deployment, 'berth.model': target.model, 'berth.operation': inference.operation, 'berth.stream': inference.stream };
    return inSpan(`inference ${inference.operation}`, attributes, () => this.attempts(ctx, signal, target, inference, use), SpanKind.CLIENT);
  }

  private async attempts<T>(
    ctx: RequestContext, signal: UpstreamSignal | undefined, target: ModelTarget, inference: InferenceRequest,
    use: (upstream: Dispatcher.ResponseData, rewriter: ModelRewriter, handOver: () => () => void) => Promise<T>,
  ): Promise<T> {
    for (let attempt = 0; ; attempt += 1) {
      const lease = await this.acquire(ctx, target, inference.user);
      let handedOver = false;
      try {
        if (signal?.aborted) throw clientGone;
        let upstream: Dispatcher.ResponseData;
        try {
          upstream = await this.send(lease, inference, ctx.requestId, signal);
        } catch (error) {
          if (signal?.aborted) throw clientGone;
          if (attempt === 0 && isConnectFailure(error)) continue;
          throw upstreamFailure(error, this.options);
        }
        return await use(upstream, new ModelRewriter(lease.servedModelId, inference.model), () => {
          handedOver = true;
          return () => lease.release();
        });
      } finally {
        if (!handedOver) lease.release();
      }
    }
  }

  /** The JSON chunks of an SSE answer; the lease goes back when they end, fail or their reader stops. */
  private async *chunksOf(ctx: RequestContext, upstream: Dispatcher.ResponseData, release: () => void): AsyncGenerator<JsonObject> {
    const parser = new SseDataParser();
    const parse = (data: string): JsonObject | undefined => {
      if (data === '[DONE]') return undefined;
      const chunk = parseObject(Buffer.from(data));
      if (chunk && typeof chunk.error === 'object' && chunk.error !== null) {
        throw unavailable('the model replica failed while streaming', { reason: 'UPSTREAM_STREAM_ERROR' });
      }
      return chunk;
    };
    try {
      for await (const bytes of upstream.body) {
        for (const data of parser.push(bytes as Buffer)) {
          const chunk = parse(data);
          if (chunk) yield chunk;
        }
      }
      for (const data of parser.end()) {
        const chunk = parse(data);
        if (chunk) yield chunk;
      }
    } catch (error) {
      if (ctx.signal?.aborted) throw clientGone;
      throw error instanceof GatewayError ? error : upstreamFailure(error, this.options);
    } finally {
      if (!upstream.body.destroyed) upstream.body.destroy();
      release();
    }
  }

  /** The directory's acquire, bounded by `acquireTimeoutMs`; a lease granted after the timeout goes straight back. */
  private acquire(ctx: RequestContext, target: ModelTarget, user: string | undefined): Promise<ReplicaLease> {
    const pending = this.directory.acquire(ctx, target, user !== undefined ? { affinityKey: user } : {});
    return new Promise<ReplicaLease>((resolve, reject) => {
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        reject(unavailable(`no replica of ${target.deployment} became ready within ${this.options.acquireMs} ms`, { reason: 'NO_READY_REPLICA' }));
      }, this.options.acquireMs);
      pending.then(
        (lease) => {
          clearTimeout(timer);
          if (timedOut) lease.release();
          else resolve(lease);
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(error);
        },
      );
    });
  }

  private send(lease: ReplicaLease, inference: InferenceRequest, requestId: string, signal: UpstreamSignal | undefined): Promise<Dispatcher.ResponseData> {
    const { origin, prefix } = this.endpoints.get(lease.endpoint);
    // The body's own `model` is what goes upstream: whatever the caller put there, the replica gets its served id.
    const body = JSON.stringify(inference.body.model === lease.servedModelId ? inference.body : { ...inference.body, model: lease.servedModelId });
    const limit = this.options.keepAliveMaxBodyBytes;
    // A string of n UTF-16 units holds at most 3n UTF-8 bytes: most bodies skip the byte count.
    const ownConnection = body.length * 3 > limit && Buffer.byteLength(body) > limit;
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: inference.stream ? 'text/event-stream' : 'application/json', 'x-request-id': requestId };
    return this.dispatcher.request({
      origin,
      path: `${prefix}${inference.operation === 'chat' ? '/v1/chat/completions' : '/v1/completions'}`,
      method: 'POST',
      headers: this.tracing ? injectTraceContext(headers) : headers,
      body,
      signal,
      headersTimeout: this.options.headersMs,
      bodyTimeout: this.options.bodyIdleMs,
      ...(ownConnection ? { reset: true } : {}),
    });
  }

  private async answer(
    upstream: Dispatcher.ResponseData, rewriter: ModelRewriter, request: FastifyRequest, reply: FastifyReply, signal: ClientAbort,
    measure: InferenceMeasurement | undefined,
  ): Promise<void> {
    if (isEventStream(upstream)) {
      await this.forwardStream(upstream, rewriter, request, reply, signal, measure);
      measure?.end(upstream.statusCode);
      return;
    }
    const body = await this.readAll(upstream, signal);
    if (measure) {
      measure.body(body);
      measure.end(upstream.statusCode);
    }
    if (upstream.statusCode >= 200 && upstream.statusCode < 300) {
      const contentType = upstream.headers['content-type'];
      const type = typeof contentType === 'string' ? contentType : 'application/json';
      await reply.code(upstream.statusCode).header('content-type', type).header('x-request-id', request.id).send(rewriter.rewriteDocument(body));
      return;
    }
    const rendered = this.refusal(upstream.statusCode, body, rewriter, request.id);
    await reply.code(rendered.status).header('x-request-id', request.id).send(rendered.body);
  }

  /** A replica's error answer as the client's inference error (model ids rewritten); a server error is logged. */
  private refusal(status: number, body: Buffer, rewriter: ModelRewriter, requestId: string): { status: number; body: InferenceErrorBody } {
    if (status >= 500) this.logger.warn({ requestId, upstreamStatus: status }, 'model replica answered with a server error');
    return upstreamErrorAnswer(status, body.toString('utf8'), (text) => rewriter.rewriteText(text));
  }

  /** A whole (non-streaming) answer, capped at `maxResponseBytes`. Plain listeners: cheaper than an async iterator per request. */
  private readAll(upstream: Dispatcher.ResponseData, signal: { readonly aborted: boolean } | undefined): Promise<Buffer> {
    const body = upstream.body;
    const max = this.options.maxResponseBytes;
    return new Promise<Buffer>((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      body.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > max) {
          body.destroy(new GatewayError(Code.INTERNAL, `the model replica's answer exceeds ${max} bytes`, { reason: 'UPSTREAM_TOO_LARGE' }));
          return;
        }
        chunks.push(chunk);
      });
      body.once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
      body.once('error', (error: unknown) => {
        if (signal?.aborted) reject(clientGone);
        else reject(error instanceof GatewayError ? error : upstreamFailure(error, this.options));
      });
    });
  }

  /**
   * Pipes an SSE answer. Headers go out at once; each upstream chunk is written as it arrives (after the
   * per-event model rewrite), waiting for `drain` when the client reads slower than the replica writes.
   * A failure after the first byte cannot change the status any more: it becomes a final SSE `error` event.
   */
  private async forwardStream(
    upstream: Dispatcher.ResponseData, rewriter: ModelRewriter, request: FastifyRequest, reply: FastifyReply, signal: ClientAbort,
    measure: InferenceMeasurement | undefined,
  ): Promise<void> {
    if (signal.aborted) {
      upstream.body.destroy();
      throw clientGone;
    }
    const res = startSse(reply, request.id, upstream.statusCode);
    const sse = rewriter.identity ? undefined : new SseModelRewriter(rewriter);
    try {
      for await (const chunk of upstream.body) {
        measure?.chunk(chunk as Buffer);
        const out = sse ? sse.push(chunk as Buffer) : (chunk as Buffer);
        if (out.length > 0 && !res.write(out)) await once(res, 'drain', { signal: signal.signal });
      }
      const tail = sse?.end();
      if (tail && tail.length > 0) res.write(tail);
      res.end();
    } catch (error) {
      if (signal.aborted) {
        res.destroy();
        return;
      }
      const failure = upstreamFailure(error, this.options);
      this.logger.warn({ requestId: request.id, err: String(error) }, 'model replica stream failed');
      res.end(streamErrorEvent(failure.code === Code.DEADLINE_EXCEEDED ? failure.message : 'the model replica closed the stream before it finished', failure.reason?.toLowerCase() ?? 'upstream_error'));
    }
  }
}

function parseObject(body: Buffer): JsonObject | undefined {
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    return isPlainObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** True for a successful Server-Sent Events answer (streamed through), false for one to read whole. */
function isEventStream(upstream: Dispatcher.ResponseData): boolean {
  const type = upstream.headers['content-type'];
  return upstream.statusCode >= 200 && upstream.statusCode < 300 && typeof type === 'string' && type.startsWith('text/event-stream');
}

function badAnswer(message: string): ChatCompletionOutcome {
  return { ok: false, status: 502, error: { message, type: 'server_error', param: null, code: 'bad_gateway' } };
}

/** A whole chat completion as the one chunk a stream of it would add up to. */
async function* replayed(completion: JsonObject): AsyncGenerator<JsonObject> {
  const choice = Array.isArray(completion.choices) ? completion.choices[0] : undefined;
  const message = isPlainObject(choice) ? choice.message : undefined;
  const finish = isPlainObject(choice) ? (choice.finish_reason ?? null) : null;
  yield { choices: [{ index: 0, delta: message ?? {}, finish_reason: finish }], usage: completion.usage ?? null };
}
