import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  Code, GatewayError, authorize, batchInferenceRunnerToken, coreServicesToken, rftJobRunnerToken, servingDirectoryToken, telemetryToken,
  type Gateway, type GatewayLogger, type JsonObject, type JsonSchema, type RequestContext,
} from '@berth/core';
import type { RouteSpec } from '../route-spec.js';
import type { BearerAuthentication } from '../authentication.js';
import { InferenceProxy, type InferenceProxyOptions } from './inference-proxy.js';
import { parseChatCompletionRequest, parseCompletionRequest, type InferenceRequest } from './inference-request.js';
import { registerResponsesRoutes } from './responses-routes.js';
import { documentedOnly, responsesRouteSpecs } from './responses-openapi.js';

export interface InferenceRouteOptions extends InferenceProxyOptions {
  /** Idle time before a streamed response (`/inference/v1/responses`, `stream: true`) writes a heartbeat comment. Default 15 s. */
  readonly responsesHeartbeatMs?: number;
  /** How often a running background response checks whether another gateway instance cancelled it. Default 500 ms. */
  readonly responsesCancelPollMs?: number;
}

export interface InferenceRouteDependencies {
  readonly gateway: Gateway;
  /** The server's bearer authentication (the same as the control plane's), run before the body is read. */
  readonly auth: BearerAuthentication;
  /** Largest accepted request body in bytes. */
  readonly bodyLimit?: number;
  readonly logger?: GatewayLogger;
  readonly options?: InferenceRouteOptions;
}

const chatPath = '/inference/v1/chat/completions';
const completionsPath = '/inference/v1/completions';
const modelsPath = '/inference/v1/models';

/**
 * Registers the OpenAI-compatible inference routes on a Fastify app, directly rather than through the
 * RouteSpec table, because streaming answers need the raw reply. Auth, request ids and error rendering
 * are the server's own: errors thrown before an answer starts reach the app's error handler, which
 * answers `/inference/...` URLs in the inference format. Requires a bound {@link servingDirectoryToken}.
 */
export function registerInferenceRoutes(app: FastifyInstance, deps: InferenceRouteDependencies): InferenceProxy {
  const { gateway, auth } = deps;
  const routeOptions = { onRequest: auth.onRequest, ...(deps.bodyLimit !== undefined ? { bodyLimit: deps.bodyLimit } : {}) };
  const proxy = new InferenceProxy(gateway.resolve(servingDirectoryToken), deps.options, deps.logger ?? gateway.logger, gateway.resolve(telemetryToken));
  app.addHook('onClose', async () => proxy.close());
  // This instance's queue workers run batch inference rows over the proxy (the routing chat completions
  // take). Before the server closes, running jobs are handed back to the queue, to resume elsewhere.
  const batch = gateway.resolve(batchInferenceRunnerToken);
  const detachBatch = batch.attach(proxy);
  // Reinforcement fine-tuning jobs sample their rollouts the same way.
  const rft = gateway.resolve(rftJobRunnerToken);
  const detachRft = rft.attach(proxy);
  app.addHook('preClose', (done) => {
    detachBatch();
    batch.handOver();
    detachRft();
    rft.handOver();
    done();
  });

  const serve = (parse: (body: unknown) => InferenceRequest) => async (request: FastifyRequest, reply: FastifyReply) => {
    await proxy.handle(auth.principalOf(request), parse(request.body), request, reply);
    return reply;
  };
  app.post(chatPath, routeOptions, serve(parseChatCompletionRequest));
  app.post(completionsPath, routeOptions, serve(parseCompletionRequest));
  registerResponsesRoutes(app, {
    gateway, auth, client: proxy, routeOptions, logger: deps.logger ?? gateway.logger,
    ...(deps.options?.responsesHeartbeatMs !== undefined ? { heartbeatMs: deps.options.responsesHeartbeatMs } : {}),
    ...(deps.options?.responsesCancelPollMs !== undefined ? { cancelPollMs: deps.options.responsesCancelPollMs } : {}),
  });

  /** The models the caller may send as `model` (it needs `inference.use` in its account). */
  const usableModelsOf = (request: FastifyRequest) => {
    const principal = auth.principalOf(request);
    const ctx: RequestContext = { requestId: request.id, principal };
    authorize(ctx, 'inference.use', { accountId: principal.accountId });
    return listUsableModels(gateway, ctx, principal.accountId);
  };
  app.get(modelsPath, routeOptions, async (request, reply) => reply.header('x-request-id', request.id).send(await usableModelsOf(request)));
  // `models.retrieve(id)`: ids have slashes (and `#`), which clients send percent-encoded (%2F, %23) or raw;
  // a wildcard takes both, and Fastify hands it over decoded.
  app.get(`${modelsPath}/*`, routeOptions, async (request, reply) => {
    const id = (request.params as { '*': string })['*'];
    const { data } = await usableModelsOf(request);
    const model = data.find((entry) => entry.id === id);
    if (!model) {
      throw new GatewayError(Code.NOT_FOUND, `model ${JSON.stringify(id)} is not served in account ${auth.principalOf(request).accountId} (GET ${modelsPath} lists the ids you can use)`, {
        field: 'model', reason: 'MODEL_NOT_FOUND',
      });
    }
    return reply.header('x-request-id', request.id).send(model);
  });
  return proxy;
}

const servingStates: ReadonlySet<unknown> = new Set(['READY', 'UPDATING']);
const maxListedDeployments = 1000;

/**
 * `GET /inference/v1/models`: what the caller can send as `model`: each base model of a deployment that
 * serves traffic in the caller's account, and the explicit `model#deployment` form of each.
 */
async function listUsableModels(gateway: Gateway, ctx: RequestContext, accountId: string): Promise<{ object: 'list'; data: JsonObject[] }> {
  const deployments = gateway.resolve(coreServicesToken).deployments;
  const data: JsonObject[] = [];
  const seen = new Set<string>();
  const add = (id: string, created: number) => {
    if (seen.has(id)) return;
    seen.add(id);
    data.push({ id, object: 'model', created, owned_by: accountId });
  };
  let pageToken: string | undefined;
  let listed = 0;
  do {
    const page = await deployments.list(ctx, accountId, { pageSize: 200, ...(pageToken ? { pageToken } : {}) });
    for (const item of page.items) {
      if (!servingStates.has(item.state) || typeof item.baseModel !== 'string' || typeof item.name !== 'string') continue;
      const created = typeof item.createTime === 'string' ? Math.floor(Date.parse(item.createTime) / 1000) : 0;
      add(item.baseModel, created);
      add(`${item.baseModel}#${item.name}`, created);
    }
    listed += page.items.length;
    pageToken = page.nextPageToken;
  } while (pageToken && listed < maxListedDeployments);
  return { object: 'list', data };
}

const messageSchema: JsonSchema = {
  type: 'object',
  required: ['role'],
  properties: {
    role: { type: 'string', enum: ['system', 'developer', 'user', 'assistant', 'tool'] },
    content: { description: 'A string or an array of content parts.' },
    name: { type: 'string' },
    tool_calls: { type: 'array', items: { type: 'object' } },
    tool_call_id: { type: 'string' },
  },
};

const samplingProperties: Record<string, JsonSchema> = {
  model: { type: 'string', description: 'A model name (`accounts/<account>/models/<model>`) or `<model>#<deployment>`.' },
  stream: { type: 'boolean', description: 'true answers Server-Sent Events (`text/event-stream`), ending with `data: [DONE]`.' },
  stream_options: { type: 'object', properties: { include_usage: { type: 'boolean' } } },
  max_tokens: { type: 'integer', minimum: 1 },
  temperature: { type: 'number', minimum: 0, maximum: 2 },
  top_p: { type: 'number', minimum: 0, maximum: 1 },
  n: { type: 'integer', minimum: 1, maximum: 128 },
  stop: { description: 'A string or up to 4 strings.' },
  seed: { type: 'integer' },
  presence_penalty: { type: 'number', minimum: -2, maximum: 2 },
  frequency_penalty: { type: 'number', minimum: -2, maximum: 2 },
  user: { type: 'string', description: 'End-user id; also the session-affinity key when the deployment enables it.' },
};

const modelEntrySchema: JsonSchema = {
  type: 'object',
  properties: { id: { type: 'string' }, object: { type: 'string', const: 'model' }, created: { type: 'integer' }, owned_by: { type: 'string' } },
};

const usageSchema: JsonSchema = {
  type: 'object',
  properties: { prompt_tokens: { type: 'integer' }, completion_tokens: { type: 'integer' }, total_tokens: { type: 'integer' } },
};


/**
 * OpenAPI descriptions of the inference routes, the Responses API's included. They are documentation
 * only: the handlers are the ones {@link registerInferenceRoutes} installs (streaming needs the raw
 * reply, which RouteSpec handlers lack).
 */
export function inferenceRouteSpecs(): RouteSpec[] {
  return [
    {
      method: 'POST', path: chatPath, tag: 'Inference', operationId: 'createChatCompletion',
      summary: 'Create a chat completion (OpenAI-compatible); with stream=true the answer is text/event-stream',
      requestBody: {
        type: 'object',
        required: ['model', 'messages'],
        properties: {
          ...samplingProperties,
          messages: { type: 'array', minItems: 1, items: messageSchema },
          tools: { type: 'array', items: { type: 'object' } },
          tool_choice: { description: 'none, auto, required, or {type: "function", function: {name}}.' },
          parallel_tool_calls: { type: 'boolean' },
        },
      },
      response: {
        type: 'object',
        properties: {
          id: { type: 'string' },
          object: { type: 'string', const: 'chat.completion' },
          created: { type: 'integer' },
          model: { type: 'string' },
          choices: { type: 'array', items: { type: 'object' } },
          usage: usageSchema,
        },
      },
      handle: documentedOnly,
    },
    {
      method: 'POST', path: completionsPath, tag: 'Inference', operationId: 'createCompletion',
      summary: 'Create a text completion (OpenAI-compatible); with stream=true the answer is text/event-stream',
      requestBody: {
        type: 'object',
        required: ['model', 'prompt'],
        properties: { ...samplingProperties, prompt: { description: 'A string, an array of strings, or token arrays.' }, echo: { type: 'boolean' } },
      },
      response: {
        type: 'object',
        properties: {
          id: { type: 'string' },
          object: { type: 'string', const: 'text_completion' },
          created: { type: 'integer' },
          model: { type: 'string' },
          choices: { type: 'array', items: { type: 'object' } },
          usage: usageSchema,
        },
      },
      handle: documentedOnly,
    },
    {
      method: 'GET', path: modelsPath, tag: 'Inference', operationId: 'listInferenceModels',
      summary: "List the models the caller can send as the model of a request (deployments serving traffic in the caller's account)",
      response: {
        type: 'object',
        properties: {
          object: { type: 'string', const: 'list' },
          data: { type: 'array', items: modelEntrySchema },
        },
      },
      handle: documentedOnly,
    },
    {
      method: 'GET', path: `${modelsPath}/{model}`, tag: 'Inference', operationId: 'retrieveInferenceModel',
      summary: 'One model the caller can send as `model`, by an id `GET /inference/v1/models` lists (percent-encoded or with raw slashes); 404 for any other id',
      response: modelEntrySchema,
      handle: documentedOnly,
    },
    ...responsesRouteSpecs(),
  ];
}
