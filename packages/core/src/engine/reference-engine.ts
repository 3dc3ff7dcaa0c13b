import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isGatewayError, renderInferenceError } from '../errors/index.js';
import type { JsonObject } from '../ports/json.js';
import {
  defaultEngineContextLength,
  generateCompletion,
  type EngineChatMessage,
  type GenerateResult,
  type GeneratorTool,
  type GeneratorToolChoice,
  type TokenUsage,
} from './generate.js';
import { AdapterError, ReferenceAdapters, type LoadedAdapter } from './reference-adapters.js';

/** `owned_by` of every model the reference engine lists. */
export const referenceEngineOwner = 'berth-reference-engine';
/** Header every reference-engine response carries: `x-berth-engine: reference`. */
export const referenceEngineHeader = 'x-berth-engine';

/** How fast the engine answers. Defaults: no delay at all. */
export interface EngineSpeed {
  /** Completion tokens per second; 0 or absent means as fast as possible. */
  readonly tokensPerSecond?: number;
  /** Delay before the first token (and before a non-streaming answer). */
  readonly timeToFirstTokenMs?: number;
}

/** Faults to inject into inference calls (`/v1/chat/completions`, `/v1/completions`). */
export interface EngineFaults {
  /** Probability (0–1) that a call fails with `errorStatus`. */
  readonly errorRate?: number;
  /** Status of injected errors. Default 500. */
  readonly errorStatus?: number;
  /** Extra latency added before every inference answer. */
  readonly latencyMs?: number;
  /** Probability (0–1) that the connection is destroyed: before the answer, or mid-stream for streams. */
  readonly dropConnectionRate?: number;
  /** Chunks sent before a dropped stream is cut. Default 2. */
  readonly dropAfterChunks?: number;
  /** `/health` answers 503 while set. */
  readonly unhealthy?: boolean;
}

export interface ReferenceEngineOptions {
  /** Default 0 (any free port). */
  readonly port?: number;
  /** Default `127.0.0.1`. */
  readonly host?: string;
  /** Model ids served (listed by `/v1/models`). Default `['reference-model']`. */
  readonly modelIds?: readonly string[];
  /** Also answer for model ids not in `modelIds` nor loaded as adapters. Default false. */
  readonly acceptUnknownModels?: boolean;
  /**
   * LoRA at run time, as vLLM with `--enable-lora --max-loras N` and `VLLM_ALLOW_RUNTIME_LORA_UPDATING`:
   * `POST /v1/load_lora_adapter` `{lora_name, lora_path}` and `POST /v1/unload_lora_adapter` `{lora_name}`;
   * at most `maxLoras` loaded at once. Absent: those routes are 404.
   */
  readonly lora?: { readonly maxLoras: number };
  /** Context window in tokens. Default 8192. */
  readonly contextLength?: number;
  readonly speed?: EngineSpeed;
  readonly faults?: EngineFaults;
  /** Source of randomness for fault injection (not for output, which is deterministic). Default Math.random. */
  readonly random?: () => number;
}

/** Counters for tests and benchmarks. */
export interface EngineStats {
  /** Inference requests received. */
  readonly requests: number;
  /** Inference requests answered completely. */
  readonly completed: number;
  /** Inference requests answered with an error status (injected or validation). */
  readonly errors: number;
  /** Connections destroyed by fault injection. */
  readonly dropped: number;
  /** Requests whose client went away before the answer was complete. */
  readonly clientDisconnects: number;
  /** Streams in progress. */
  readonly activeStreams: number;
  /** LoRA adapters loaded (successful `/v1/load_lora_adapter` calls) and unloaded since start. */
  readonly adapterLoads: number;
  readonly adapterUnloads: number;
}

/** A running reference engine. */
export interface ReferenceEngine {
  /** Base URL, e.g. `http://127.0.0.1:41234` (the OpenAI base URL is `{url}/v1`). */
  readonly url: string;
  readonly port: number;
  setFaults(faults: EngineFaults): void;
  setSpeed(speed: EngineSpeed): void;
  stats(): EngineStats;
  /** The LoRA adapters loaded now. */
  adapters(): readonly LoadedAdapter[];
  /** Stops listening and cuts open connections. Idempotent. */
  close(): Promise<void>;
}

interface Counters {
  requests: number;
  completed: number;
  errors: number;
  dropped: number;
  clientDisconnects: number;
  activeStreams: number;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type: string,
    readonly param: string | null,
    readonly errorCode: string | null,
  ) {
    super(message);
  }
}

const maxBodyBytes = 4 * 1024 * 1024;

/**
 * Starts the reference engine: an OpenAI-compatible server on node:http for tests, local development and the
 * simulated provisioner. Routes: `POST /v1/chat/completions`, `POST /v1/completions` (both with `stream` and
 * `stream_options.include_usage`), `GET /v1/models` (loaded adapters listed with their `parent`), `GET /health`,
 * and with `lora` the adapter routes. Output comes from {@link generateCompletion}: deterministic in (model,
 * prompt, seed, and a loaded adapter's digest); `temperature`/`top_p` are validated but do not change it,
 * except that `temperature` shapes the word distribution under a trained reference add-on (reference-lora.ts).
 * Errors use the OpenAI body `{error: {message, type, param, code}}`.
 */
export async function startReferenceEngine(options: ReferenceEngineOptions = {}): Promise<ReferenceEngine> {
  const modelIds = options.modelIds && options.modelIds.length > 0 ? [...options.modelIds] : ['reference-model'];
  const contextLength = options.contextLength ?? defaultEngineContextLength;
  const random = options.random ?? Math.random;
  let speed: EngineSpeed = options.speed ?? {};
  let faults: EngineFaults = options.faults ?? {};
  const counters: Counters = { requests: 0, completed: 0, errors: 0, dropped: 0, clientDisconnects: 0, activeStreams: 0 };
  const createdAt = Math.floor(Date.now() / 1000);
  const adapters = options.lora ? new ReferenceAdapters(options.lora.maxLoras, modelIds) : undefined;

  const server = createServer((req, res) => {
    res.setHeader(referenceEngineHeader, 'reference');
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (error instanceof HttpError) sendError(res, error);
      else if (isGatewayError(error)) {
        const rendered = renderInferenceError(error);
        sendJson(res, rendered.status, rendered.body);
      } else sendError(res, new HttpError(500, 'internal error', 'server_error', null, null));
    });
  });
  server.keepAliveTimeout = 5_000;

  const sendError = (res: ServerResponse, error: HttpError) => {
    sendJson(res, error.status, { error: { message: error.message, type: error.type, param: error.param, code: error.errorCode } });
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (req.method === 'GET' && path === '/health') {
      if (faults.unhealthy) sendJson(res, 503, { status: 'unhealthy' });
      else sendJson(res, 200, { status: 'ok' });
      return;
    }
    if (req.method === 'GET' && path === '/v1/models') {
      const card = (id: string, root: string, parent: string | null) => ({
        id,
        object: 'model',
        created: createdAt,
        owned_by: referenceEngineOwner,
        root,
        parent,
        max_model_len: contextLength,
      });
      sendJson(res, 200, {
        object: 'list',
        data: [
          ...modelIds.map((id) => card(id, id, null)),
          ...(adapters?.list() ?? []).map((a) => card(a.name, a.path, modelIds[0] ?? null)),
        ],
      });
      return;
    }
    if (adapters && req.method === 'POST' && (path === '/v1/load_lora_adapter' || path === '/v1/unload_lora_adapter')) {
      await adapterCall(adapters, path === '/v1/load_lora_adapter' ? 'load' : 'unload', req, res);
      return;
    }
    const route = path === '/v1/chat/completions' ? 'chat' : path === '/v1/completions' ? 'completion' : undefined;
    if (!route) throw new HttpError(404, `no route for ${req.method} ${path}`, 'invalid_request_error', null, 'not_found');
    if (req.method !== 'POST') throw new HttpError(405, `${path} takes POST`, 'invalid_request_error', null, 'method_not_allowed');

    counters.requests += 1;
    let connectionGone = false;
    res.on('close', () => {
      if (!res.writableFinished) {
        connectionGone = true;
        counters.clientDisconnects += 1;
      }
    });
    try {
      const body = await readJson(req);
      const request = route === 'chat' ? parseChatRequest(body) : parseCompletionRequest(body);
      const adapter = adapters?.get(request.model);
      if (!modelIds.includes(request.model) && !adapter && !options.acceptUnknownModels) {
        throw new HttpError(404, `The model \`${request.model}\` does not exist.`, 'invalid_request_error', 'model', 'model_not_found');
      }
      const current = faults;
      if (current.latencyMs) await sleep(current.latencyMs, () => connectionGone);
      if (current.errorRate && random() < current.errorRate) {
        throw new HttpError(current.errorStatus ?? 500, 'injected fault: the reference engine failed this request', 'server_error', null, 'injected_fault');
      }
      const drop = Boolean(current.dropConnectionRate && random() < current.dropConnectionRate);
      const results = generateAll(request, adapter);
      if (request.stream) {
        await stream(res, request, results, drop ? (current.dropAfterChunks ?? 2) : undefined, () => connectionGone);
      } else {
        const tokens = Math.max(...results.map((r) => r.pieces.length), 0);
        await sleep((speed.timeToFirstTokenMs ?? 0) + tokensDelay(tokens), () => connectionGone);
        if (connectionGone) return;
        if (drop) {
          counters.dropped += 1;
          res.destroy();
          return;
        }
        sendJson(res, 200, route === 'chat' ? chatResponse(request, results) : completionResponse(request, results));
      }
      if (!connectionGone) counters.completed += 1;
    } catch (error) {
      if (!res.headersSent && !connectionGone) counters.errors += 1;
      throw error;
    }
  }

  function tokensDelay(tokens: number): number {
    const tps = speed.tokensPerSecond ?? 0;
    return tps > 0 ? (tokens * 1000) / tps : 0;
  }

  function generateAll(request: ParsedRequest, adapter: LoadedAdapter | undefined): GenerateResult[] {
    const results: GenerateResult[] = [];
    const prompts = request.kind === 'chat' ? [undefined] : request.prompts;
    for (const prompt of prompts) {
      for (let i = 0; i < request.n; i += 1) {
        results.push(
          generateCompletion({
            model: request.model,
            ...(request.kind === 'chat' ? { messages: request.messages } : { prompt: prompt ?? '' }),
            seed: request.seed,
            ...(request.maxTokens !== undefined ? { maxTokens: request.maxTokens } : {}),
            contextLength,
            ...(request.stop !== undefined ? { stop: request.stop } : {}),
            ...(request.kind === 'chat' && request.tools ? { tools: request.tools } : {}),
            ...(request.kind === 'chat' && request.toolChoice ? { toolChoice: request.toolChoice } : {}),
            ...(request.kind === 'chat' ? { parallelToolCalls: request.parallelToolCalls } : {}),
            choiceIndex: i,
            ...(adapter !== undefined ? { adapter: adapter.digest } : {}),
            ...(adapter?.wordLogitBias ? { wordLogitBias: adapter.wordLogitBias, ...(request.temperature !== undefined ? { temperature: request.temperature } : {}) } : {}),
          }),
        );
      }
    }
    return results;
  }

  async function stream(
    res: ServerResponse,
    request: ParsedRequest,
    results: GenerateResult[],
    dropAfter: number | undefined,
    gone: () => boolean,
  ): Promise<void> {
    counters.activeStreams += 1;
    try {
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
      res.flushHeaders();
      const id = request.kind === 'chat' ? `chatcmpl-${randomId()}` : `cmpl-${randomId()}`;
      const created = Math.floor(Date.now() / 1000);
      const includeUsage = request.includeUsage;
      let sent = 0;
      const send = (payload: JsonObject | '[DONE]'): boolean => {
        if (gone()) return false;
        if (dropAfter !== undefined && sent >= dropAfter) {
          counters.dropped += 1;
          res.destroy();
          return false;
        }
        res.write(`data: ${payload === '[DONE]' ? payload : JSON.stringify(payload)}\n\n`);
        sent += 1;
        return true;
      };
      const envelope = (choices: JsonObject[]): JsonObject =>
        request.kind === 'chat'
          ? { id, object: 'chat.completion.chunk', created, model: request.model, system_fingerprint: 'berth-reference', choices, ...(includeUsage ? { usage: null } : {}) }
          : { id, object: 'text_completion', created, model: request.model, choices, ...(includeUsage ? { usage: null } : {}) };

      await sleep(speed.timeToFirstTokenMs ?? 0, gone);
      for (const [index, result] of results.entries()) {
        if (request.kind === 'chat') {
          if (!send(envelope([{ index, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }]))) return;
          for (const [callIndex, call] of result.toolCalls.entries()) {
            const delta = { tool_calls: [{ index: callIndex, id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } }] };
            if (!send(envelope([{ index, delta, logprobs: null, finish_reason: null }]))) return;
          }
        } else if (request.echo) {
          if (!send(envelope([{ index, text: request.prompts[Math.floor(index / request.n)] ?? '', logprobs: null, finish_reason: null }]))) return;
        }
        for (const piece of result.pieces) {
          await sleep(tokensDelay(1), gone);
          const choice: JsonObject =
            request.kind === 'chat'
              ? { index, delta: { content: piece }, logprobs: null, finish_reason: null }
              : { index, text: piece, logprobs: null, finish_reason: null };
          if (!send(envelope([choice]))) return;
        }
        const last: JsonObject =
          request.kind === 'chat'
            ? { index, delta: {}, logprobs: null, finish_reason: result.finishReason }
            : { index, text: '', logprobs: null, finish_reason: result.finishReason };
        if (!send(envelope([last]))) return;
      }
      if (includeUsage && !send({ ...envelope([]), usage: { ...sumUsage(results) } })) return;
      if (!send('[DONE]')) return;
      res.end();
    } finally {
      counters.activeStreams -= 1;
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${address.port}`,
    port: address.port,
    setFaults(next) {
      faults = next;
    },
    setSpeed(next) {
      speed = next;
    },
    stats: () => ({ ...counters, adapterLoads: adapters?.loads ?? 0, adapterUnloads: adapters?.unloads ?? 0 }),
    adapters: () => adapters?.list() ?? [],
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

/** `/v1/load_lora_adapter` and `/v1/unload_lora_adapter`: vLLM's bodies, its plain-text success answers and error statuses. */
async function adapterCall(adapters: ReferenceAdapters, action: 'load' | 'unload', req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = await readJson(req);
  if (!isObject(body) || typeof body.lora_name !== 'string' || body.lora_name.length === 0) throw invalid('lora_name is required', 'lora_name');
  const name = body.lora_name;
  try {
    if (action === 'load') {
      if (typeof body.lora_path !== 'string' || body.lora_path.length === 0) throw invalid('lora_path is required', 'lora_path');
      await adapters.load(name, body.lora_path);
    } else {
      adapters.unload(name);
    }
  } catch (error) {
    if (error instanceof AdapterError) {
      throw new HttpError(error.status, error.message, error.status === 404 ? 'NotFoundError' : 'InvalidUserInput', null, null);
    }
    throw error;
  }
  const text = `Success: LoRA adapter '${name}' ${action === 'load' ? 'added' : 'removed'} successfully.`;
  res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

interface ChatRequest {
  readonly kind: 'chat';
  readonly model: string;
  readonly messages: EngineChatMessage[];
  readonly tools?: GeneratorTool[];
  readonly toolChoice?: GeneratorToolChoice;
  readonly parallelToolCalls: boolean;
}

interface CompletionRequest {
  readonly kind: 'completion';
  readonly model: string;
  readonly prompts: string[];
  readonly echo: boolean;
}

type ParsedRequest = (ChatRequest | CompletionRequest) & {
  readonly stream: boolean;
  readonly includeUsage: boolean;
  readonly maxTokens?: number;
  readonly seed: number;
  readonly n: number;
  readonly stop?: string | string[];
  readonly temperature?: number;
};

function invalid(message: string, param: string | null): HttpError {
  return new HttpError(400, message, 'invalid_request_error', param, null);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseCommon(body: Record<string, unknown>): Omit<ParsedRequest, 'kind' | 'messages' | 'tools' | 'toolChoice' | 'parallelToolCalls' | 'prompts' | 'echo'> {
  if (typeof body.model !== 'string' || body.model.length === 0) throw invalid('model is required', 'model');
  const stream = body.stream ?? false;
  if (typeof stream !== 'boolean') throw invalid('stream must be a boolean', 'stream');
  const streamOptions = body.stream_options;
  if (streamOptions !== undefined && streamOptions !== null && !isObject(streamOptions)) throw invalid('stream_options must be an object', 'stream_options');
  const maxTokens = body.max_completion_tokens ?? body.max_tokens;
  if (maxTokens !== undefined && maxTokens !== null && (!Number.isInteger(maxTokens) || (maxTokens as number) < 1)) {
    throw invalid('max_tokens must be a positive integer', 'max_tokens');
  }
  const seed = body.seed ?? 0;
  if (!Number.isInteger(seed)) throw invalid('seed must be an integer', 'seed');
  const n = body.n ?? 1;
  if (!Number.isInteger(n) || (n as number) < 1 || (n as number) > 16) throw invalid('n must be an integer from 1 to 16', 'n');
  for (const [key, min, max] of [['temperature', 0, 2], ['top_p', 0, 1]] as const) {
    const value = body[key];
    if (value !== undefined && value !== null && (typeof value !== 'number' || value < min || value > max)) {
      throw invalid(`${key} must be a number from ${min} to ${max}`, key);
    }
  }
  let stop: string | string[] | undefined;
  if (typeof body.stop === 'string') stop = body.stop;
  else if (Array.isArray(body.stop) && body.stop.every((s) => typeof s === 'string') && body.stop.length <= 4) stop = body.stop as string[];
  else if (body.stop !== undefined && body.stop !== null) throw invalid('stop must be a string or up to 4 strings', 'stop');
  return {
    model: body.model,
    stream,
    includeUsage: stream && isObject(streamOptions) && streamOptions.include_usage === true,
    ...(typeof maxTokens === 'number' ? { maxTokens } : {}),
    seed: seed as number,
    n: n as number,
    ...(stop !== undefined ? { stop } : {}),
    ...(typeof body.temperature === 'number' ? { temperature: body.temperature } : {}),
  };
}

const roles = new Set(['system', 'developer', 'user', 'assistant', 'tool']);

function parseChatRequest(body: unknown): ParsedRequest {
  if (!isObject(body)) throw invalid('the request body must be a JSON object', null);
  const common = parseCommon(body);
  if (!Array.isArray(body.messages) || body.messages.length === 0) throw invalid('messages must be a non-empty array', 'messages');
  const messages = body.messages.map((m, i) => {
    if (!isObject(m) || typeof m.role !== 'string' || !roles.has(m.role)) {
      throw invalid(`messages[${i}] must be an object with a role of system, developer, user, assistant or tool`, `messages[${i}].role`);
    }
    const content = m.content;
    if (content !== undefined && content !== null && typeof content !== 'string' && !Array.isArray(content)) {
      throw invalid(`messages[${i}].content must be a string or an array of content parts`, `messages[${i}].content`);
    }
    return m as unknown as EngineChatMessage;
  });
  let tools: GeneratorTool[] | undefined;
  if (body.tools !== undefined && body.tools !== null) {
    if (!Array.isArray(body.tools)) throw invalid('tools must be an array', 'tools');
    tools = body.tools.map((t, i) => {
      if (!isObject(t) || t.type !== 'function' || !isObject(t.function) || typeof t.function.name !== 'string') {
        throw invalid(`tools[${i}] must be {type: "function", function: {name, parameters?}}`, `tools[${i}]`);
      }
      const parameters = isObject(t.function.parameters) ? (t.function.parameters as JsonObject) : undefined;
      return {
        name: t.function.name,
        ...(typeof t.function.description === 'string' ? { description: t.function.description } : {}),
        ...(parameters ? { parameters } : {}),
      };
    });
  }
  let toolChoice: GeneratorToolChoice | undefined;
  const rawChoice = body.tool_choice;
  if (rawChoice === 'none' || rawChoice === 'auto' || rawChoice === 'required') toolChoice = rawChoice;
  else if (isObject(rawChoice) && isObject(rawChoice.function) && typeof rawChoice.function.name === 'string') {
    toolChoice = { name: rawChoice.function.name };
  } else if (rawChoice !== undefined && rawChoice !== null) {
    throw invalid('tool_choice must be none, auto, required or {type: "function", function: {name}}', 'tool_choice');
  }
  return {
    ...common,
    kind: 'chat',
    messages,
    ...(tools ? { tools } : {}),
    ...(toolChoice ? { toolChoice } : {}),
    parallelToolCalls: body.parallel_tool_calls !== false,
  };
}

function parseCompletionRequest(body: unknown): ParsedRequest {
  if (!isObject(body)) throw invalid('the request body must be a JSON object', null);
  const common = parseCommon(body);
  let prompts: string[];
  if (typeof body.prompt === 'string') prompts = [body.prompt];
  else if (Array.isArray(body.prompt) && body.prompt.length > 0 && body.prompt.every((p) => typeof p === 'string')) prompts = body.prompt as string[];
  else throw invalid('prompt must be a string or a non-empty array of strings', 'prompt');
  return { ...common, kind: 'completion', prompts, echo: body.echo === true };
}

function chatResponse(request: ParsedRequest, results: GenerateResult[]): JsonObject {
  return {
    id: `chatcmpl-${randomId()}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: request.model,
    system_fingerprint: 'berth-reference',
    choices: results.map((result, index) => ({
      index,
      message: {
        role: 'assistant',
        content: result.toolCalls.length > 0 ? null : result.text,
        refusal: null,
        ...(result.toolCalls.length > 0
          ? { tool_calls: result.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) }
          : {}),
      },
      logprobs: null,
      finish_reason: result.finishReason,
    })),
    usage: { ...sumUsage(results) },
  };
}

function completionResponse(request: ParsedRequest, results: GenerateResult[]): JsonObject {
  const prompts = request.kind === 'completion' ? request.prompts : [];
  return {
    id: `cmpl-${randomId()}`,
    object: 'text_completion',
    created: Math.floor(Date.now() / 1000),
    model: request.model,
    choices: results.map((result, index) => ({
      index,
      text: (request.kind === 'completion' && request.echo ? (prompts[Math.floor(index / request.n)] ?? '') : '') + result.text,
      logprobs: null,
      finish_reason: result.finishReason,
    })),
    usage: { ...sumUsage(results) },
  };
}

/** Usage over several choices: the prompt is counted once per distinct prompt, completions summed. */
function sumUsage(results: GenerateResult[]): TokenUsage {
  const promptTokens = results.length === 0 ? 0 : Math.max(...results.map((r) => r.usage.prompt_tokens));
  const completionTokens = results.reduce((sum, r) => sum + r.usage.completion_tokens, 0);
  return { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
}

function randomId(): string {
  return randomBytes(12).toString('hex');
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > maxBodyBytes) throw new HttpError(413, 'request body too large', 'invalid_request_error', null, 'request_too_large');
    chunks.push(buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    throw invalid('the request body is not valid JSON', null);
  }
}

/** Sleeps, waking early (checking every 20 ms) once `cancelled` turns true. */
function sleep(ms: number, cancelled: () => boolean): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const end = Date.now() + ms;
    const tick = () => {
      const left = end - Date.now();
      if (left <= 0 || cancelled()) resolve();
      else setTimeout(tick, Math.min(left, 20));
    };
    tick();
  });
}
