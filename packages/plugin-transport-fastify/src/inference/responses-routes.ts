import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import {
  ResponsesService, backgroundResponsesToken, clockToken, queueWakeupsToken, responseToolProvidersToken, servingDirectoryToken, storageToken,
  type ChatModelClient, type Gateway, type GatewayLogger,
} from '@berth/core';
import type { BearerAuthentication } from '../authentication.js';
import { inferenceContext } from './inference-context.js';
import { SseEventSink } from './sse-event-sink.js';

export const responsesPath = '/inference/v1/responses';

export interface ResponsesRouteDependencies {
  readonly gateway: Gateway;
  readonly auth: BearerAuthentication;
  /** How model turns reach replicas: the inference proxy, so responses share chat completions' routing. */
  readonly client: ChatModelClient;
  /** The inference routes' options (bearer auth before the body, body limit). */
  readonly routeOptions: RouteShorthandOptions;
  readonly logger?: GatewayLogger;
  /** Idle time before a streamed response writes a heartbeat comment. Default 15 s. */
  readonly heartbeatMs?: number;
  /** How often a running background response checks whether another instance cancelled it. Default 500 ms. */
  readonly cancelPollMs?: number;
}

/** Query parameters as single strings (a repeated parameter keeps its first value). */
function queryOf(request: FastifyRequest): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries((request.query ?? {}) as Record<string, unknown>)) {
    const first = Array.isArray(value) ? value[0] : value;
    if (typeof first === 'string') out[key] = first;
  }
  return out;
}

/**
 * The Responses API over HTTP: create (whole, or streamed as Server-Sent Events with `stream: true`),
 * retrieve, delete, list, input items, compaction, and cancel of a background response (run by the queue workers). The domain (rules, turns,
 * storage) is core's {@link ResponsesService}; errors reach the server's error handler, which answers
 * `/inference/...` URLs in the inference format.
 */
export function registerResponsesRoutes(app: FastifyInstance, deps: ResponsesRouteDependencies): ResponsesService {
  const { gateway, auth, routeOptions } = deps;
  const storage = gateway.resolve(storageToken);
  const service = new ResponsesService({
    resources: storage.resources,
    storage,
    queueWakeups: gateway.resolve(queueWakeupsToken),
    ...(deps.cancelPollMs !== undefined ? { cancelPollMs: deps.cancelPollMs } : {}),
    directory: gateway.resolve(servingDirectoryToken),
    client: deps.client,
    clock: gateway.resolve(clockToken),
    toolProviders: gateway.resolveAll(responseToolProvidersToken),
  });
  // This instance's queue workers run background responses through this service (over the inference proxy).
  // Before the server closes (and the proxy with it), running ones are handed back to the queue: retried
  // on another instance or after a restart, rather than failed by a closing connection pool.
  const detach = gateway.resolve(backgroundResponsesToken).attach(service);
  app.addHook('preClose', (done) => {
    detach();
    service.handOverBackground();
    done();
  });
  const contextOf = (request: FastifyRequest, reply: FastifyReply) => inferenceContext(request, reply, auth.principalOf(request));
  const idOf = (request: FastifyRequest) => (request.params as { id: string }).id;
  const answer = (reply: FastifyReply, request: FastifyRequest, body: unknown) => reply.header('x-request-id', request.id).send(body);

  app.post(responsesPath, routeOptions, async (request, reply) => {
    const ctx = contextOf(request, reply);
    const prepared = await service.prepare(ctx, request.body);
    if (!prepared.request.stream) return answer(reply, request, await service.run(ctx, prepared));
    const sink = new SseEventSink(reply, request.id, deps.heartbeatMs);
    try {
      await service.run(ctx, prepared, sink);
      sink.end();
    } catch (error) {
      if (!sink.started) throw error;
      if (ctx.abort.aborted) {
        sink.destroy();
      } else {
        // The response recorded its own failures; this is one after it (e.g. storing it failed).
        deps.logger?.warn({ requestId: request.id, err: String(error) }, 'a streamed response failed after its stream started');
        sink.error('server_error', 'the response could not be completed');
        sink.end();
      }
    }
    return reply;
  });
  app.get(responsesPath, routeOptions, async (request, reply) => answer(reply, request, await service.list(contextOf(request, reply), queryOf(request))));
  app.get(`${responsesPath}/:id`, routeOptions, async (request, reply) => answer(reply, request, await service.get(contextOf(request, reply), idOf(request))));
  app.delete(`${responsesPath}/:id`, routeOptions, async (request, reply) => answer(reply, request, await service.delete(contextOf(request, reply), idOf(request))));
  app.post(`${responsesPath}/:id/cancel`, routeOptions, async (request, reply) => answer(reply, request, await service.cancel(contextOf(request, reply), idOf(request))));
  app.get(`${responsesPath}/:id/input_items`, routeOptions, async (request, reply) =>
    answer(reply, request, await service.inputItems(contextOf(request, reply), idOf(request), queryOf(request))));
  app.post(`${responsesPath}/compact`, routeOptions, async (request, reply) => answer(reply, request, await service.compact(contextOf(request, reply), request.body)));
  return service;
}
