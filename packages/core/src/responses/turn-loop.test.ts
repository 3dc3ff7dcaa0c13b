import { describe, expect, it } from 'vitest';
import { unavailable } from '../errors/index.js';
import { newResponsesId } from './response-ids.js';
import { parseResponseRequest } from './response-request.js';
import { EngineClient, callerContext, fixtureDeployment, fixtureModel } from './responses-fixtures.js';
import type { ConversationItem, FunctionCallItem } from './response-types.js';
import type { ToolSession } from './tool-provider.js';
import { TurnLoop } from './turn-loop.js';

const ctx = callerContext();
const target = { accountId: 'acme', model: fixtureModel, deployment: fixtureDeployment };
const withContextLength = (contextLength: number) => ({ ...target, facts: { contextLength, supportsImageInput: false } });

function run(client: EngineClient, body: Record<string, unknown>, options: { session?: ToolSession; contextLength?: number; toolChoice?: 'required' } = {}) {
  const parsed = parseResponseRequest({ model: fixtureModel, ...body });
  const request = options.toolChoice ? { ...parsed, toolChoice: options.toolChoice } : parsed;
  return new TurnLoop(client).run(ctx, {
    request, context: request.input, target: withContextLength(options.contextLength ?? 8192), ...(options.session ? { session: options.session } : {}),
  });
}

/** A gateway-run tool `lookup` answering `found <arguments>`; tracks how many calls run at once. */
function lookupSession(): ToolSession & { executed: string[]; maxConcurrent: number } {
  let running = 0;
  const session = {
    executed: [] as string[],
    maxConcurrent: 0,
    functions: [{ name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } }, { name: 'search' }],
    items: [] as ConversationItem[],
    handles: (name: string) => name === 'lookup' || name === 'search',
    async execute(_ctx: unknown, call: FunctionCallItem): Promise<ConversationItem[]> {
      running += 1;
      session.maxConcurrent = Math.max(session.maxConcurrent, running);
      await new Promise((resolve) => setTimeout(resolve, 5));
      running -= 1;
      session.executed.push(call.name);
      return [call, { type: 'function_call_output', id: newResponsesId('fco'), call_id: call.call_id, output: `found ${call.arguments}`, status: 'completed' }];
    },
    close: async () => {},
  };
  return session;
}

describe('TurnLoop', () => {
  it('answers in one turn with a message and the turn usage', async () => {
    const client = new EngineClient();
    const result = await run(client, { input: 'Say hello', temperature: 0.5 });
    expect(result).toMatchObject({ status: 'completed', incompleteReason: null, error: null });
    expect(result.output).toHaveLength(1);
    expect(result.output[0]).toMatchObject({ type: 'message', role: 'assistant', status: 'completed' });
    expect(result.usage.promptTokens).toBeGreaterThan(0);
    expect(result.usage.completionTokens).toBeGreaterThan(0);
    expect(client.bodies[0]).toMatchObject({ model: fixtureModel, temperature: 0.5, top_p: 1, messages: [{ role: 'user', content: 'Say hello' }] });
    expect(client.bodies[0]).not.toHaveProperty('max_tokens');
    expect(client.bodies[0]).not.toHaveProperty('tools');
  });

  it('sends the target model upstream, without the request model\'s #deployment suffix', async () => {
    const client = new EngineClient();
    const result = await run(client, { model: `${fixtureModel}#d`, input: 'Say hello' });
    expect(result.status).toBe('completed');
    expect(client.bodies[0]!.model).toBe(fixtureModel);
  });

  it('stops incomplete at max_output_tokens', async () => {
    const client = new EngineClient();
    const result = await run(client, { input: 'Tell me a long story', max_output_tokens: 3 });
    expect(result).toMatchObject({ status: 'incomplete', incompleteReason: 'max_output_tokens' });
    expect(result.output[0]).toMatchObject({ status: 'incomplete' });
    expect(result.usage.completionTokens).toBe(3);
    expect(client.bodies[0]!.max_tokens).toBe(3);
  });

  it('returns a client function call as a function_call item and stops', async () => {
    const client = new EngineClient();
    const result = await run(client, {
      input: 'What does get_weather say for Paris?',
      tools: [{ type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }],
    });
    expect(result.status).toBe('completed');
    expect(result.output).toEqual([expect.objectContaining({ type: 'function_call', name: 'get_weather', call_id: expect.stringMatching(/^call_/) })]);
    expect(client.bodies[0]).toMatchObject({ tools: [{ type: 'function', function: { name: 'get_weather' } }], parallel_tool_calls: true });
  });

  it('sends no tools with tool_choice none', async () => {
    const client = new EngineClient();
    const result = await run(client, { input: 'call get_weather', tool_choice: 'none', tools: [{ type: 'function', name: 'get_weather' }] });
    expect(result.output[0]).toMatchObject({ type: 'message' });
    expect(client.bodies[0]).not.toHaveProperty('tools');
  });

  it('runs gateway tools and asks again, summing usage over the turns', async () => {
    const client = new EngineClient();
    const session = lookupSession();
    const result = await run(client, { input: 'please lookup the harbor' }, { session });
    expect(result.status).toBe('completed');
    expect(result.output.map((i) => i.type)).toEqual(['function_call', 'function_call_output', 'message']);
    expect(client.bodies).toHaveLength(2);
    expect(client.bodies[1]!.messages).toEqual([
      { role: 'user', content: 'please lookup the harbor' },
      { role: 'assistant', content: null, tool_calls: [expect.objectContaining({ function: expect.objectContaining({ name: 'lookup' }) })] },
      { role: 'tool', tool_call_id: expect.any(String), content: expect.stringMatching(/^found /) },
    ]);
    expect(result.usage.promptTokens).toBeGreaterThan(0);
    expect(result.usage.completionTokens).toBeGreaterThan(0);
  });

  it('runs parallel gateway calls side by side, or one by one without parallel_tool_calls', async () => {
    const parallel = lookupSession();
    await run(new EngineClient(), { input: 'lookup and search' }, { session: parallel });
    expect(parallel.executed.sort()).toEqual(['lookup', 'search']);
    expect(parallel.maxConcurrent).toBe(2);
    const serial = lookupSession();
    await run(new EngineClient(), { input: 'lookup and search', parallel_tool_calls: false }, { session: serial });
    expect(serial.executed).toHaveLength(1);
    expect(serial.maxConcurrent).toBe(1);
  });

  it('stops incomplete at max_tool_calls, keeping only the calls allowed', async () => {
    const session = lookupSession();
    const result = await run(new EngineClient(), { input: 'lookup and search', max_tool_calls: 1 }, { session });
    expect(result).toMatchObject({ status: 'incomplete', incompleteReason: 'max_tool_calls' });
    expect(result.output.filter((i) => i.type === 'function_call')).toHaveLength(1);
    expect(session.executed).toHaveLength(1);
  });

  it('loops while the model keeps calling gateway tools, up to max_tool_calls', async () => {
    const session = lookupSession();
    const client = new EngineClient();
    const looping = await run(client, { input: 'go', max_tool_calls: 3 }, { session, toolChoice: 'required' });
    expect(looping).toMatchObject({ status: 'incomplete', incompleteReason: 'max_tool_calls' });
    expect(session.executed).toHaveLength(3);
  });

  it('fails the response when the model cannot be reached or the replica fails', async () => {
    const client = new EngineClient();
    client.scripted.push(unavailable('no replica of d became ready', { reason: 'NO_READY_REPLICA' }));
    expect(await run(client, { input: 'hi' })).toMatchObject({
      status: 'failed', output: [], error: { type: 'server_error', code: 'no_ready_replica', message: 'no replica of d became ready' },
    });
    client.scripted.push({ ok: false, status: 500, error: { message: 'boom', type: 'server_error', param: null, code: null } });
    expect(await run(client, { input: 'hi' })).toMatchObject({ status: 'failed', error: { type: 'server_error', code: 'upstream_error' } });
    client.scripted.push({ ok: true, completion: { choices: [] } });
    expect(await run(client, { input: 'hi' })).toMatchObject({ status: 'failed', error: { code: 'bad_upstream_answer' } });
  });

  it('throws what the engine refuses as the client error', async () => {
    const client = new EngineClient();
    client.scripted.push({ ok: false, status: 400, error: { message: 'bad schema', type: 'invalid_request_error', param: 'tools', code: null } });
    await expect(run(client, { input: 'hi' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', field: 'tools', message: 'bad schema' });
    client.scripted.push({ ok: false, status: 429, error: { message: 'slow down', type: 'rate_limit_error', param: null, code: null } });
    await expect(run(client, { input: 'hi' })).rejects.toMatchObject({ code: 'RESOURCE_EXHAUSTED' });
  });

  it('truncates when the engine says the prompt is too long and the context length was not known', async () => {
    const long = Array.from({ length: 60 }, (_, i) => `w${i}`).join(' ');
    const input = [{ role: 'user', content: long }, { role: 'assistant', content: long }, { role: 'user', content: 'short question' }];
    const client = new EngineClient(100);
    const request = parseResponseRequest({ model: fixtureModel, input, truncation: 'auto' });
    const result = await new TurnLoop(client).run(ctx, { request, context: request.input, target });
    expect(result.status).toBe('completed');
    expect(client.bodies.length).toBeGreaterThan(1);
    expect(client.bodies.at(-1)!.messages).toEqual([{ role: 'assistant', content: long }, { role: 'user', content: 'short question' }]);

    const disabled = parseResponseRequest({ model: fixtureModel, input });
    await expect(new TurnLoop(new EngineClient(100)).run(ctx, { request: disabled, context: disabled.input, target }))
      .rejects.toMatchObject({ code: 'INVALID_ARGUMENT', reason: 'CONTEXT_LENGTH_EXCEEDED', field: 'input' });
  });

  it('caps max_tokens to the room the context leaves', async () => {
    const client = new EngineClient(60);
    const result = await run(client, { input: 'hello there', max_output_tokens: 500 }, { contextLength: 60 });
    expect(result.status).toMatch(/completed|incomplete/);
    expect(client.bodies[0]!.max_tokens).toBeLessThan(60);
  });

  it('forwards sampling, format and reasoning settings', async () => {
    const client = new EngineClient();
    await run(client, {
      input: 'hi', presence_penalty: 0.5, frequency_penalty: -0.5, top_logprobs: 2, user: 'u1', reasoning: { effort: 'low' },
      text: { format: { type: 'json_schema', name: 'out', schema: { type: 'object' } } },
    });
    expect(client.bodies[0]).toMatchObject({
      presence_penalty: 0.5, frequency_penalty: -0.5, logprobs: true, top_logprobs: 2, user: 'u1', reasoning_effort: 'low',
      response_format: { type: 'json_schema', json_schema: { name: 'out', schema: { type: 'object' } } },
    });
  });
});
