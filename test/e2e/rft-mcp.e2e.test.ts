import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryStorage } from '@berth/plugin-storage-memory';
import { mcpTools } from '@berth/plugin-tools-mcp';
import { account, baseModelBody, startHarness, type Harness } from './harness.js';
import { batchGatewayPlugins, uploadJsonl } from './batch-inference-scenario.js';
import { startMcpTestServer, type McpTestServer } from './fixtures/mcp-test-server.js';
import { createCodeEvaluator, createJob, ended, metricsOf, modelName, pollJob, v1 } from './rft-scenario.js';

/**
 * MCP tools in the rollouts of a reinforcement fine-tuning job (`mcpServer`): the embedded gateway with
 * `mcpTools()` and loopback URLs allowed, simulated replicas running reference engines, the reference
 * trainer, and the MCP test server of the Responses tests. The reference engine calls the tools its last
 * user message names and answers in text after a tool result, so each rollout is: a tool call, its result
 * (or error) sent back, a final text answer. The evaluator reads the whole turn.
 */
let h: Harness;
let mcp: McpTestServer;

/** 1 when a tool result of the turn says the weather is sunny (the `lookup` tool ran and its output came back), else 0. */
const toolEvaluator = `export function evaluate(input) {
  const results = input.messages.filter((m) => m.role === 'tool').map((m) => String(m.content));
  if (input.answer.length === 0) return { score: 0, reason: 'no final answer' };
  return results.some((r) => /: sunny$/.test(r)) ? 1 : 0;
}`;

beforeAll(async () => {
  mcp = await startMcpTestServer();
  h = await startHarness({ plugins: [...batchGatewayPlugins(memoryStorage()), mcpTools({ callTimeoutMs: 5000 })], config: { allowLoopbackUrls: true } });
  expect((await h.call('POST', `${v1}/models`, { body: { modelId: 'base', model: baseModelBody({}) } })).status).toBe(200);
  await createCodeEvaluator(h, 'sunny', 'sunny', toolEvaluator);
  const rows = [
    { messages: [{ role: 'user', content: 'Check the weather with lookup.' }] },
    { messages: [{ role: 'user', content: 'Tell me the weather; use lookup.' }] },
    { messages: [{ role: 'user', content: 'Open the gate with fail.' }] },
  ];
  await uploadJsonl(h, 'tool-prompts', `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`);
}, 60_000);
afterAll(async () => {
  await h?.close();
  await mcp?.close();
});

const job = (mcpServer: string) => ({
  dataset: 'tool-prompts', evaluator: `accounts/${account}/evaluators/sunny`, mcpServer,
  inferenceParameters: { responseCandidatesCount: 4, maxOutputTokens: 16 },
  trainingConfig: { baseModel: modelName('base'), epochs: 2, learningRate: 1, loraRank: 4 },
});

describe('reinforcement fine-tuning with the tools of an MCP server', () => {
  it('offers the server\'s tools to every rollout, runs the calls, sends results and errors back, and scores the final answer with the turn', async () => {
    const before = mcp.calls.length;
    const name = await createJob(h, 'tools', job(`${mcp.url}/mcp`));
    const done = await pollJob(h, name, ended);
    expect(done.state, JSON.stringify(done.status)).toBe('JOB_STATE_COMPLETED');
    // 2 epochs × 3 prompts × 4 candidates, one tool call each: the two lookup prompts score 1 (the result came
    // back to the model and then to the evaluator), the fail prompt 0 (the tool's error was read, the job went on).
    const calls = mcp.calls.slice(before);
    expect(calls.filter((c) => c.name === 'lookup')).toHaveLength(16);
    expect(calls.filter((c) => c.name === 'fail')).toHaveLength(8);
    expect(calls).toHaveLength(24);
    expect(calls.find((c) => c.name === 'lookup')?.arguments).toEqual({ city: expect.any(String) });
    const curve = metricsOf(done).rewardCurve.map((e) => e.trainReward);
    expect(curve).toEqual([0.666667, 0.666667]);
    expect(JSON.parse(String(done.outputStats))).toMatchObject({ rollouts: 24, scoredRollouts: 24, failedRollouts: 0, toolCalls: 24, failedToolCalls: 8 });
  }, 120_000);

  it('fails the job with the reason when the server cannot be listed; create refuses an mcpServer that is not an http(s) URL', async () => {
    const closed = await startMcpTestServer();
    await closed.close();
    const name = await createJob(h, 'unreachable', job(`${closed.url}/mcp`));
    const failed = await pollJob(h, name, ended);
    expect(failed).toMatchObject({ state: 'JOB_STATE_FAILED', status: { code: 'FAILED_PRECONDITION', message: expect.stringContaining(`mcpServer ${closed.url}/mcp`) } });
    expect(failed.jobProgress?.totalProcessedRequests ?? 0).toBe(0);
    for (const bad of ['not a url', 'ftp://example.com/mcp', 'http://user:secret@example.com/mcp']) {
      const refused = await h.call('POST', `${v1}/reinforcementFineTuningJobs`, { body: job(bad) });
      expect(refused, bad).toMatchObject({ status: 400, body: { code: 3, message: expect.stringContaining('mcpServer') } });
    }
  }, 60_000);

  it('a gateway that refuses loopback addresses fails the job in VALIDATING, naming mcpServer', async () => {
    const strict = await startHarness({ plugins: [...batchGatewayPlugins(memoryStorage()), mcpTools()] });
    try {
      expect((await strict.call('POST', `${v1}/models`, { body: { modelId: 'base', model: baseModelBody({}) } })).status).toBe(200);
      await createCodeEvaluator(strict, 'sunny', 'sunny', toolEvaluator);
      await uploadJsonl(strict, 'tool-prompts', `${JSON.stringify({ messages: [{ role: 'user', content: 'lookup' }] })}\n`);
      const name = await createJob(strict, 'refused', job(`${mcp.url}/mcp`));
      const seen: Record<string, unknown>[] = [];
      const failed = await pollJob(strict, name, ended, seen as never);
      expect(failed).toMatchObject({ state: 'JOB_STATE_FAILED', status: { code: 'INVALID_ARGUMENT', message: expect.stringContaining('mcpServer') } });
      expect(seen.map((j) => j.state)).not.toContain('JOB_STATE_RUNNING');
    } finally {
      await strict.close();
    }
  }, 60_000);
});
