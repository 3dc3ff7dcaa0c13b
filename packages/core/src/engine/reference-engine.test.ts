import { afterEach, describe, expect, it } from 'vitest';
import { startReferenceEngine, type ReferenceEngine, type ReferenceEngineOptions } from './reference-engine.js';

const engines: ReferenceEngine[] = [];
afterEach(async () => {
  await Promise.all(engines.splice(0).map((e) => e.close()));
});

async function start(options: ReferenceEngineOptions = {}): Promise<ReferenceEngine> {
  const engine = await startReferenceEngine({ modelIds: ['test-model'], ...options });
  engines.push(engine);
  return engine;
}

function post(engine: ReferenceEngine, path: string, body: unknown, signal?: AbortSignal): Promise<Response> {
  return fetch(`${engine.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
}

/** Reads an SSE body into its `data:` payloads. */
async function readEvents(response: Response): Promise<string[]> {
  const text = await response.text();
  return text
    .split('\n\n')
    .filter((block) => block.trim().length > 0)
    .map((block) => {
      expect(block.startsWith('data: ')).toBe(true);
      return block.slice('data: '.length);
    });
}

interface ChatCompletion {
  choices: { index: number; message: { role: string; content: string | null; tool_calls?: { id: string; function: { name: string; arguments: string } }[] }; finish_reason: string }[];
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  object: string;
  model: string;
}

describe('reference engine over HTTP', () => {
  it('lists its models and answers health checks, marking itself', async () => {
    const engine = await start({ contextLength: 4096 });
    const models = await fetch(`${engine.url}/v1/models`);
    expect(models.headers.get('x-berth-engine')).toBe('reference');
    expect(await models.json()).toMatchObject({
      object: 'list',
      data: [{ id: 'test-model', object: 'model', owned_by: 'berth-reference-engine', max_model_len: 4096 }],
    });
    const health = await fetch(`${engine.url}/health`);
    expect(health.status).toBe(200);
    engine.setFaults({ unhealthy: true });
    expect((await fetch(`${engine.url}/health`)).status).toBe(503);
    expect(engine.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('answers chat completions deterministically with usage', async () => {
    const engine = await start();
    const body = { model: 'test-model', messages: [{ role: 'user', content: 'Say hello' }], seed: 7 };
    const first = (await (await post(engine, '/v1/chat/completions', body)).json()) as ChatCompletion;
    const second = (await (await post(engine, '/v1/chat/completions', body)).json()) as ChatCompletion;
    expect(first.object).toBe('chat.completion');
    expect(first.model).toBe('test-model');
    expect(first.choices[0]?.message.role).toBe('assistant');
    expect(first.choices[0]?.message.content).toBe(second.choices[0]?.message.content);
    expect(first.choices[0]?.finish_reason).toBe('stop');
    expect(first.usage.total_tokens).toBe(first.usage.prompt_tokens + first.usage.completion_tokens);
    expect(first.usage.prompt_tokens).toBeGreaterThan(0);
  });

  it('honours max_tokens and n', async () => {
    const engine = await start();
    const response = (await (
      await post(engine, '/v1/chat/completions', { model: 'test-model', messages: [{ role: 'user', content: 'x' }], max_tokens: 2, n: 2 })
    ).json()) as ChatCompletion;
    expect(response.choices).toHaveLength(2);
    expect(response.choices.every((c) => c.finish_reason === 'length')).toBe(true);
    expect(response.usage.completion_tokens).toBe(4);
  });

  it('answers legacy completions, with echo', async () => {
    const engine = await start();
    const response = await post(engine, '/v1/completions', { model: 'test-model', prompt: 'Once upon a time', max_tokens: 5, echo: true });
    const body = (await response.json()) as { object: string; choices: { text: string; finish_reason: string }[]; usage: { completion_tokens: number } };
    expect(body.object).toBe('text_completion');
    expect(body.choices[0]?.text.startsWith('Once upon a time')).toBe(true);
    expect(body.choices[0]?.finish_reason).toBe('length');
    expect(body.usage.completion_tokens).toBe(5);
  });

  it('streams chat chunks then [DONE], with usage when asked', async () => {
    const engine = await start();
    const body = { model: 'test-model', messages: [{ role: 'user', content: 'Stream please' }], seed: 3 };
    const plain = (await (await post(engine, '/v1/chat/completions', body)).json()) as ChatCompletion;
    const response = await post(engine, '/v1/chat/completions', { ...body, stream: true, stream_options: { include_usage: true } });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = await readEvents(response);
    expect(events.at(-1)).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e) as { object: string; choices: { delta: { content?: string; role?: string }; finish_reason: string | null }[]; usage: unknown });
    expect(chunks.every((c) => c.object === 'chat.completion.chunk')).toBe(true);
    expect(chunks[0]?.choices[0]?.delta.role).toBe('assistant');
    const text = chunks.flatMap((c) => c.choices.map((ch) => ch.delta.content ?? '')).join('');
    expect(text).toBe(plain.choices[0]?.message.content);
    const finish = chunks.flatMap((c) => c.choices.map((ch) => ch.finish_reason)).filter((f) => f !== null);
    expect(finish).toEqual(['stop']);
    const usageChunk = chunks.at(-1)!;
    expect(usageChunk.choices).toEqual([]);
    expect(usageChunk.usage).toEqual(plain.usage);
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true);
  });

  it('streams completions without usage unless asked', async () => {
    const engine = await start();
    const events = await readEvents(await post(engine, '/v1/completions', { model: 'test-model', prompt: 'abc', stream: true, max_tokens: 4 }));
    expect(events.at(-1)).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e) as { choices: { text: string; finish_reason: string | null }[]; usage?: unknown });
    expect(chunks.every((c) => c.usage === undefined)).toBe(true);
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('length');
    expect(chunks.filter((c) => (c.choices[0]?.text ?? '') !== '')).toHaveLength(4);
  });

  it('returns tool calls, streamed and not', async () => {
    const engine = await start();
    const body = {
      model: 'test-model',
      messages: [{ role: 'user', content: 'What does lookup_order say about order 5?' }],
      tools: [{ type: 'function', function: { name: 'lookup_order', parameters: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] } } }],
    };
    const response = (await (await post(engine, '/v1/chat/completions', body)).json()) as ChatCompletion;
    const choice = response.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBeNull();
    expect(choice.message.tool_calls?.[0]?.function.name).toBe('lookup_order');
    expect(Object.keys(JSON.parse(choice.message.tool_calls?.[0]?.function.arguments ?? '{}') as object)).toEqual(['id']);

    const events = await readEvents(await post(engine, '/v1/chat/completions', { ...body, stream: true }));
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e) as { choices: { delta: { tool_calls?: { function: { name: string } }[] }; finish_reason: string | null }[] });
    expect(chunks.some((c) => c.choices[0]?.delta.tool_calls?.[0]?.function.name === 'lookup_order')).toBe(true);
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('tool_calls');
  });

  it('rejects an overlong prompt with an OpenAI-style context_length_exceeded error', async () => {
    const engine = await start({ contextLength: 16 });
    const response = await post(engine, '/v1/chat/completions', { model: 'test-model', messages: [{ role: 'user', content: 'word '.repeat(40) }] });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { message: string; type: string; param: string | null; code: string } };
    expect(body.error).toMatchObject({ type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' });
    expect(body.error.message).toMatch(/maximum context length is 16 tokens/);
  });

  it('validates requests and unknown models', async () => {
    const engine = await start();
    const unknown = await post(engine, '/v1/chat/completions', { model: 'other', messages: [{ role: 'user', content: 'x' }] });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe('model_not_found');
    const bad = await post(engine, '/v1/chat/completions', { model: 'test-model', messages: [] });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { param: string } }).error.param).toBe('messages');
    const temp = await post(engine, '/v1/chat/completions', { model: 'test-model', messages: [{ role: 'user', content: 'x' }], temperature: 3 });
    expect(temp.status).toBe(400);
    const notJson = await fetch(`${engine.url}/v1/chat/completions`, { method: 'POST', body: '{' });
    expect(notJson.status).toBe(400);
    expect((await fetch(`${engine.url}/v2/nothing`)).status).toBe(404);
    const any = await startReferenceEngine({ modelIds: ['base'], acceptUnknownModels: true });
    engines.push(any);
    expect((await post(any, '/v1/chat/completions', { model: 'addon', messages: [{ role: 'user', content: 'x' }] })).status).toBe(200);
  });

  it('injects errors with a configured status', async () => {
    const engine = await start({ faults: { errorRate: 1, errorStatus: 503 } });
    const response = await post(engine, '/v1/chat/completions', { model: 'test-model', messages: [{ role: 'user', content: 'x' }] });
    expect(response.status).toBe(503);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('injected_fault');
    expect(engine.stats().errors).toBe(1);
    engine.setFaults({});
    expect((await post(engine, '/v1/chat/completions', { model: 'test-model', messages: [{ role: 'user', content: 'x' }] })).status).toBe(200);
  });

  it('drops connections when told to', async () => {
    const engine = await start({ faults: { dropConnectionRate: 1 } });
    await expect(post(engine, '/v1/chat/completions', { model: 'test-model', messages: [{ role: 'user', content: 'x' }] })).rejects.toThrow();
    const streamed = await post(engine, '/v1/chat/completions', { model: 'test-model', messages: [{ role: 'user', content: 'x' }], stream: true });
    await expect(streamed.text()).rejects.toThrow();
    expect(engine.stats().dropped).toBe(2);
  });

  it('paces tokens and notices a client that disconnects mid-stream', async () => {
    const engine = await start({ speed: { tokensPerSecond: 50, timeToFirstTokenMs: 10 } });
    const controller = new AbortController();
    const response = await post(
      engine,
      '/v1/chat/completions',
      { model: 'test-model', messages: [{ role: 'user', content: 'long answer' }], stream: true },
      controller.signal,
    );
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(first.done).toBe(false);
    expect(engine.stats().activeStreams).toBe(1);
    controller.abort();
    await reader.cancel().catch(() => undefined);
    await waitFor(() => engine.stats().activeStreams === 0);
    expect(engine.stats().clientDisconnects).toBe(1);
    expect(engine.stats().completed).toBe(0);
  });

  it('adds latency when configured', async () => {
    const engine = await start({ faults: { latencyMs: 60 } });
    const startedAt = Date.now();
    await post(engine, '/v1/chat/completions', { model: 'test-model', messages: [{ role: 'user', content: 'x' }] });
    // Not a timing assertion on performance, only that the injected delay happened at all.
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(50);
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
