import { EventEmitter, once } from 'node:events';
import { Agent, type Dispatcher } from 'undici';
import {
  authorize, Code, GatewayError, unavailable,
  silentLogger, type ChatCompletionCall, type ChatCompletionOutcome, type ChatModelClient, type ChatStreamOutcome, type GatewayLogger, type JsonObject,
  type ModelTarget, type Principal, type ReplicaLease, type RequestContext, type ServingDirectory,
} from '@berth/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { InferenceRequest } from './inference-request.js';
import { ModelRewriter, SseModelRewriter } from './model-rewrite.js';
import { SseDataParser } from './sse-data-parser.js';
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

/** A class, not a literal with a getter: V8 builds accessor literals through the runtime (slow on a hot path). */
class InferenceRequestContext implements RequestContext {
  constructor(
    readonly requestId: string,
    readonly principal: Principal,
    private readonly abort: ClientAbort,
  ) {}

  get signal(): AbortSignal {
    return this.abort.signal;
  }
}

const clientGone = new GatewayError(Code.CANCELLED, 'the client closed the connection', { reason: 'CLIENT_CLOSED' });

/**
 * The client's side of one exchange going away. An EventEmitter rather than an AbortController because
 * undici accepts either and this is on every request's path: the AbortSignal (for the serving directory
 * and `drain` waits) is made only if someone reads it.
 */
class ClientAbort extends EventEmitter {
  aborted = false;
  reason: unknown;
  private controller: AbortController | undefined;

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.emit('abort');
    this.controller?.abort(reason);
  }
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

  constructor(
    private readonly directory: ServingDirectory,
    options: InferenceProxyOptions = {},
    private readonly logger: GatewayLogger = silentLogger,
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
    const abort = new ClientAbort();
    const res = reply.raw;
    res.once('close', () => {
      if (!res.writableFinished) abort.abort(clientGone);
    });
    const ctx = new InferenceRequestContext(request.id, principal, abort);
    // The caller's role must allow inference at all; access to the model's account (public models from
    // any account) is the directory's call, since only it knows what the name points to.
    authorize(ctx, 'inference.use', { accountId: principal.accountId });
    const target = await this.directory.resolve(ctx, inference.model);

    // One retry on another lease when the replica refused the connection: the request never reached it.
    for (let attempt = 0; ; attempt += 1) {
      const lease = await this.acquire(ctx, target, inference.user);
      let released = false;
      const release = () => {
        if (!released) {
          released = true;
          lease.release();
        }
      };
      try {
        if (abort.aborted) throw clientGone;
        const rewriter = new ModelRewriter(lease.servedModelId, inference.model);
        let upstream: Dispatcher.ResponseData;
        try {
          upstream = await this.send(lease, inference, request.id, abort);
        } catch (error) {
          if (abort.aborted) throw clientGone;
          if (attempt === 0 && isConnectFailure(error)) {
            release();
            continue;
          }
          throw upstreamFailure(error, this.options);
        }
        await this.answer(upstream, rewriter, request, reply, abort);
        return;
      } finally {
        release();
      }
    }
  }

  /**
   * One non-streaming chat completion for an already resolved target (the Responses API's model turns):
   * lease, send with the served model id, read the whole answer, release. The error of a refused request
   * comes back as the outcome (with the served model id rewritten to the target's model), a failed
   * exchange is thrown (UNAVAILABLE, DEADLINE_EXCEEDED; CANCELLED once `ctx.signal` aborted).
   */
  async complete(ctx: RequestContext, call: ChatCompletionCall): Promise<ChatCompletionOutcome> {
    const outcome = await this.exchange(ctx, call, false);
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
    const outcome = await this.exchange(ctx, { ...call, body }, true);
    if (!outcome.ok) return outcome;
    if ('completion' in outcome) return { ok: true, chunks: replayed(outcome.completion) };
    return { ok: true, chunks: this.chunksOf(ctx, outcome.upstream, outcome.release) };
  }

  /** Leases a replica and sends one chat call (retrying once on a refused connection); the lease is released unless a stream is handed over. */
  private async exchange(ctx: RequestContext, call: ChatCompletionCall, stream: boolean): Promise<
    | ChatCompletionOutcome
    | { readonly ok: true; readonly upstream: Dispatcher.ResponseData; readonly release: () => void }
  > {
    const inference: InferenceRequest = { operation: 'chat', model: call.target.model, stream, body: call.body };
    for (let attempt = 0; ; attempt += 1) {
      const lease = await this.acquire(ctx, call.target, call.affinityKey);
      let handedOver = false;
      try {
        if (ctx.signal?.aborted) throw callerGone();
        let upstream: Dispatcher.ResponseData;
        try {
          upstream = await this.send(lease, inference, ctx.requestId, ctx.signal);
        } catch (error) {
          if (ctx.signal?.aborted) throw callerGone();
          if (attempt === 0 && isConnectFailure(error)) continue;
          throw upstreamFailure(error, this.options);
        }
        const status = upstream.statusCode;
        const type = upstream.headers['content-type'];
        if (status >= 200 && status < 300 && typeof type === 'string' && type.startsWith('text/event-stream')) {
          handedOver = true;
          return { ok: true, upstream, release: () => lease.release() };
        }
        const body = await this.readAll(upstream, ctx.signal);
        if (status >= 200 && status < 300) {
          const completion = parseObject(body);
          return completion ? { ok: true, completion } : badAnswer('the model replica answered with a body that is not a JSON object');
        }
        const rewriter = new ModelRewriter(lease.servedModelId, call.target.model);
        const rendered = upstreamErrorAnswer(status, body.toString('utf8'), (text) => rewriter.rewriteText(text));
        if (status >= 500) this.logger.warn({ requestId: ctx.requestId, upstreamStatus: status }, 'model replica answered with a server error');
        return { ok: false, status: rendered.status, error: rendered.body.error };
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
      if (ctx.signal?.aborted) throw callerGone();
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
    const body = JSON.stringify(inference.model === lease.servedModelId ? inference.body : { ...inference.body, model: lease.servedModelId });
    const limit = this.options.keepAliveMaxBodyBytes;
    // A string of n UTF-16 units holds at most 3n UTF-8 bytes: most bodies skip the byte count.
    const ownConnection = body.length * 3 > limit && Buffer.byteLength(body) > limit;
    return this.dispatcher.request({
      origin,
      path: `${prefix}${inference.operation === 'chat' ? '/v1/chat/completions' : '/v1/completions'}`,
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: inference.stream ? 'text/event-stream' : 'application/json', 'x-request-id': requestId },
      body,
      signal,
      headersTimeout: this.options.headersMs,
      bodyTimeout: this.options.bodyIdleMs,
      ...(ownConnection ? { reset: true } : {}),
    });
  }

  private async answer(upstream: Dispatcher.ResponseData, rewriter: ModelRewriter, request: FastifyRequest, reply: FastifyReply, signal: ClientAbort): Promise<void> {
    const contentType = upstream.headers['content-type'];
    const type = typeof contentType === 'string' ? contentType : 'application/json';
    if (upstream.statusCode >= 200 && upstream.statusCode < 300 && type.startsWith('text/event-stream')) {
      await this.forwardStream(upstream, rewriter, request, reply, signal);
      return;
    }
    const body = await this.readAll(upstream, signal);
    if (upstream.statusCode >= 200 && upstream.statusCode < 300) {
      await reply.code(upstream.statusCode).header('content-type', type).header('x-request-id', request.id).send(rewriter.rewriteDocument(body));
      return;
    }
    const rendered = upstreamErrorAnswer(upstream.statusCode, body.toString('utf8'), (text) => rewriter.rewriteText(text));
    if (upstream.statusCode >= 500) {
      this.logger.warn({ requestId: request.id, upstreamStatus: upstream.statusCode }, 'model replica answered with a server error');
    }
    await reply.code(rendered.status).header('x-request-id', request.id).send(rendered.body);
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
  private async forwardStream(upstream: Dispatcher.ResponseData, rewriter: ModelRewriter, request: FastifyRequest, reply: FastifyReply, signal: ClientAbort): Promise<void> {
    if (signal.aborted) {
      upstream.body.destroy();
      throw clientGone;
    }
    reply.hijack();
    const res = reply.raw;
    res.writeHead(upstream.statusCode, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'x-accel-buffering': 'no',
      'x-request-id': request.id,
    });
    res.flushHeaders();
    const sse = rewriter.identity ? undefined : new SseModelRewriter(rewriter);
    try {
      for await (const chunk of upstream.body) {
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
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as JsonObject) : undefined;
  } catch {
    return undefined;
  }
}

const callerGone = (): GatewayError => new GatewayError(Code.CANCELLED, 'the caller went away', { reason: 'CLIENT_CLOSED' });

function badAnswer(message: string): ChatCompletionOutcome {
  return { ok: false, status: 502, error: { message, type: 'server_error', param: null, code: 'bad_gateway' } };
}

/** A whole chat completion as the one chunk a stream of it would add up to. */
async function* replayed(completion: JsonObject): AsyncGenerator<JsonObject> {
  const choice = Array.isArray(completion.choices) ? completion.choices[0] : undefined;
  const message = typeof choice === 'object' && choice !== null && !Array.isArray(choice) ? choice.message : undefined;
  const finish = typeof choice === 'object' && choice !== null && !Array.isArray(choice) ? (choice.finish_reason ?? null) : null;
  yield { choices: [{ index: 0, delta: message ?? {}, finish_reason: finish }], usage: completion.usage ?? null };
}
