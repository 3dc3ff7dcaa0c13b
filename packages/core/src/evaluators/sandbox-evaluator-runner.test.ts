import { spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemContext } from '../contracts/request-context.js';
import type { EvaluationOutcome, EvaluationRequest, EvaluatorCriterionSpec, EvaluatorRunner, EvaluatorSpec } from '../ports/evaluator-runner.js';
import { createEgressHttp } from '../outbound/egress-client.js';
import { startLoopbackServer, type LoopbackServer } from '../outbound/loopback-server-fixture.js';
import { createSandboxEvaluatorRunner } from './sandbox-evaluator-runner.js';
import { detectSandboxHost, sandboxCommand, spawnSandboxed } from './sandbox-command.js';
import { SandboxPool } from './sandbox-pool.js';

const ctx = systemContext('test');
const request = (text: string, row: Record<string, unknown> = { ground_truth: '4' }): EvaluationRequest =>
  ({ row: { messages: [{ role: 'user', content: 'What is 2 + 2?' }], ...row }, answer: { text } }) as EvaluationRequest;

const js = (code: string, language = 'javascript'): EvaluatorSpec => ({
  criteria: [{ type: 'CODE_SNIPPETS', name: 'code', codeSnippets: { language, fileContents: { 'main.js': code } } }],
});
const py = (code: string): EvaluatorSpec => ({
  criteria: [{ type: 'CODE_SNIPPETS', name: 'code', codeSnippets: { language: 'python', fileContents: { 'main.py': code } } }],
});
const correct = js('export function evaluate(input) { return input.answer.trim() === input.groundTruth ? 1 : 0; }');

function failedWith(outcome: EvaluationOutcome, code: string): string {
  expect(outcome.status, JSON.stringify(outcome)).toBe('failed');
  if (outcome.status !== 'failed') return '';
  expect(outcome.code, outcome.reason).toBe(code);
  return outcome.reason;
}

function scored(outcome: EvaluationOutcome): number {
  expect(outcome.status, JSON.stringify(outcome)).toBe('scored');
  return outcome.status === 'scored' ? outcome.score : Number.NaN;
}

/** After a bad criterion, the runner scores the next rollout correctly. */
async function nextIsScored(runner: EvaluatorRunner): Promise<void> {
  expect(scored(await runner.score(ctx, correct, request('4')))).toBe(1);
  expect(scored(await runner.score(ctx, correct, request('5')))).toBe(0);
}

let runner: EvaluatorRunner;
/** python3 on this host (the Python tests need it; the FAILED_PRECONDITION test runs without). */
const python = spawnSync('python3', ['-c', 'print(1)'], { stdio: 'ignore' }).status === 0 ? 'python3' : undefined;
let server: Server;
let serverPort = 0;
let connections = 0;

beforeAll(async () => {
  runner = createSandboxEvaluatorRunner({ workers: 2, timeoutMs: 800, killGraceMs: 700, memoryMb: 48, pythonMemoryMb: 256 });
  server = createServer((socket) => {
    connections += 1;
    socket.end('hello');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  serverPort = (server.address() as { port: number }).port;
});

afterAll(async () => {
  await runner.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('JavaScript and TypeScript criteria', () => {
  it('scores with the function the entry file exports, given messages, answer, ground truth and row', async () => {
    expect(scored(await runner.score(ctx, correct, request('4')))).toBe(1);
    const seen = js('export const evaluate = (i) => ({ score: i.messages.length === 2 && i.messages[1].role === "assistant" && i.row.extra === 7 ? 0.25 : 0, reason: "ok" });');
    const outcome = await runner.score(ctx, seen, request('x', { extra: 7 }));
    expect(outcome).toMatchObject({ status: 'scored', score: 0.25, reason: 'ok' });
  });

  it('strips TypeScript types and loads the evaluator\'s other files', async () => {
    const evaluator: EvaluatorSpec = {
      criteria: [{
        codeSnippets: {
          language: 'typescript',
          entryFile: 'main.ts',
          fileContents: {
            'main.ts': 'import { normalise } from "./lib/text";\ninterface Input { answer: string; groundTruth: string }\nexport async function evaluate(input: Input): Promise<number> { await null; return normalise(input.answer) === normalise(input.groundTruth) ? 1 : 0; }',
            'lib/text.ts': 'export const normalise = (s: string): string => s.trim().toLowerCase();',
          },
        },
      }],
    };
    expect(await runner.build(ctx, evaluator)).toEqual({ ok: true });
    expect(scored(await runner.score(ctx, evaluator, request(' FOUR ', { ground_truth: 'four' })))).toBe(1);
  });

  it('records what the criterion logs', async () => {
    const outcome = await runner.score(ctx, js('export function evaluate() { console.log("checking", { n: 1 }); return 1; }'), request('4'));
    expect(outcome.details.criteria[0]?.logs).toEqual(['checking {"n":1}']);
  });

  it('a syntax error is a build error (INVALID_ARGUMENT), and a failed rollout when scored anyway', async () => {
    const broken = js('export function evaluate( { return 1 }');
    const built = await runner.build(ctx, broken);
    expect(built).toMatchObject({ ok: false, code: 'INVALID_ARGUMENT' });
    failedWith(await runner.score(ctx, broken, request('4')), 'BUILD');
    const typed = js('export function evaluate(x: number { return 1 }', 'typescript');
    expect(await runner.build(ctx, typed)).toMatchObject({ ok: false, code: 'INVALID_ARGUMENT' });
  });

  it('a throw, a rejection, a missing entry function, a score outside 0..1 or a non-score fail that rollout only', async () => {
    expect(failedWith(await runner.score(ctx, js('export function evaluate() { throw new TypeError("no idea"); }'), request('4')), 'THREW')).toContain('TypeError: no idea');
    expect(failedWith(await runner.score(ctx, js('export async function evaluate() { throw new Error("later"); }'), request('4')), 'THREW')).toContain('later');
    expect(failedWith(await runner.score(ctx, js('export function score() { return 1; }'), request('4')), 'THREW')).toContain('evaluate');
    expect(failedWith(await runner.score(ctx, js('export function evaluate() { return 1.5; }'), request('4')), 'INVALID_RESULT')).toContain('1.5');
    failedWith(await runner.score(ctx, js('export function evaluate() { return -0.1; }'), request('4')), 'INVALID_RESULT');
    failedWith(await runner.score(ctx, js('export function evaluate() { return "1"; }'), request('4')), 'INVALID_RESULT');
    failedWith(await runner.score(ctx, js('export function evaluate() { return NaN; }'), request('4')), 'INVALID_RESULT');
    failedWith(await runner.score(ctx, js('export function evaluate() { return new Promise(() => {}); }'), request('4')), 'INVALID_RESULT');
    await nextIsScored(runner);
  });
});

describe('the JavaScript sandbox stops or refuses', () => {
  it('a criterion that loops forever (time limit), synchronously or after an await', async () => {
    expect(failedWith(await runner.score(ctx, js('export function evaluate() { for (;;) {} }'), request('4')), 'TIMEOUT')).toContain('time limit');
    failedWith(await runner.score(ctx, js('export async function evaluate() { await null; while (true) {} }'), request('4')), 'TIMEOUT');
    await nextIsScored(runner);
  });

  it('a criterion that blocks where the in-process limit cannot reach it (its process is killed)', async () => {
    const blocked = js('export function evaluate() { Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0); return 1; }');
    failedWith(await runner.score(ctx, blocked, request('4')), 'TIMEOUT');
    await nextIsScored(runner);
  });

  it('a criterion that allocates without bound (memory limit; the process is replaced)', async () => {
    const hog = js('export function evaluate() { const keep = []; for (;;) keep.push(new Array(1e5).fill(Math.random())); }');
    const reason = failedWith(await runner.score(ctx, hog, request('4')), 'MEMORY');
    expect(reason).toMatch(/memory/);
    await nextIsScored(runner);
  });

  it('a criterion that reads /etc/passwd, opens a socket, spawns a process or reads process.env', async () => {
    const attempts = [
      'export function evaluate() { return require("fs").readFileSync("/etc/passwd", "utf8").length > 0 ? 1 : 0; }',
      'export async function evaluate() { const fs = await import("node:fs"); return fs.readFileSync("/etc/passwd").length > 0 ? 1 : 0; }',
      `export function evaluate() { require("net").connect(${serverPort}, "127.0.0.1"); return 1; }`,
      'export async function evaluate() { await fetch("http://127.0.0.1:1/"); return 1; }',
      'export function evaluate() { require("child_process").execSync("id"); return 1; }',
      'export function evaluate() { return Object.keys(process.env).length > 0 ? 1 : 0; }',
      'export function evaluate() { return this.constructor.constructor("return process")().env.PATH ? 1 : 0; }',
      'export function evaluate(input) { return input.constructor.constructor("return process")().pid > 0 ? 1 : 0; }',
      'export function evaluate() { return globalThis.constructor.constructor("return process")().pid > 0 ? 1 : 0; }',
    ];
    for (const code of attempts) failedWith(await runner.score(ctx, js(code), request('4')), 'THREW');
    expect(connections).toBe(0);
    await nextIsScored(runner);
  });

  it('leaves nothing reachable in the sandbox process itself: no module loading, bindings, fetch, environment or code from strings', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'berth-selfcheck-'));
    process.env.BERTH_SANDBOX_TEST_SECRET = 'do-not-leak';
    const pool = new SandboxPool({ directory, size: 1, memoryMb: 48, killGraceMs: 500, maxReplyBytes: 65536 });
    try {
      const reply = await pool.selfCheck();
      expect(reply.ok).toBe(true);
      expect(JSON.parse(reply.ok ? reply.result : '{}')).toEqual({ require: false, binding: false, fetch: false, env: false, codeFromStrings: false });
    } finally {
      delete process.env.BERTH_SANDBOX_TEST_SECRET;
      await pool.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('confines a process started like a sandbox to its scratch directory (permission model) and, where available, a network namespace', async () => {
    const host = detectSandboxHost();
    const directory = mkdtempSync(join(tmpdir(), 'berth-probe-'));
    const scratch = join(directory, 'scratch');
    const script = join(directory, 'probe.cjs');
    writeFileSync(script, `
      const fs = require('node:fs'); const net = require('node:net'); const cp = require('node:child_process');
      const result = {};
      try { fs.readFileSync('/etc/passwd'); result.read = true; } catch (e) { result.read = e.code; }
      try { fs.writeFileSync(${JSON.stringify(join(scratch, 'ok.txt'))}, 'x'); result.scratch = true; } catch (e) { result.scratch = e.code; }
      try { cp.execSync('true'); result.spawn = true; } catch (e) { result.spawn = e.code; }
      const socket = net.connect(${serverPort}, '127.0.0.1');
      socket.on('connect', () => { result.net = true; done(); });
      socket.on('error', (e) => { result.net = e.code; done(); });
      function done() { process.stdout.write(JSON.stringify(result)); process.exit(0); }
    `);
    const { mkdirSync } = await import('node:fs');
    mkdirSync(scratch);
    const { command, args } = sandboxCommand({ script, scratch, memoryMb: 48, host });
    const child = spawnSandboxed(command, args, scratch);
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
    await new Promise((resolve) => child.on('close', resolve));
    rmSync(directory, { recursive: true, force: true });
    const result = JSON.parse(out) as Record<string, unknown>;
    expect(result.read).toBe('ERR_ACCESS_DENIED');
    expect(result.scratch).toBe(true);
    expect(result.spawn).toBe('ERR_ACCESS_DENIED');
    if (host.networkNamespace) expect(result.net).not.toBe(true);
  });
});

describe('built-in criteria', () => {
  it('EXACT_MATCH compares the trimmed answer with the ground-truth field', async () => {
    const exact: EvaluatorSpec = { criteria: [{ type: 'EXACT_MATCH', exactMatch: {} }] };
    expect(scored(await runner.score(ctx, exact, request(' 4\n')))).toBe(1);
    expect(scored(await runner.score(ctx, exact, request('four')))).toBe(0);
    const field: EvaluatorSpec = { criteria: [{ exactMatch: { groundTruthField: 'label', caseSensitive: false } }] };
    expect(scored(await runner.score(ctx, field, request('YES', { label: 'yes' })))).toBe(1);
    failedWith(await runner.score(ctx, field, request('YES', {})), 'FAILED_PRECONDITION');
  });

  it('REGEX matches in the sandbox, so a catastrophic pattern only times out', async () => {
    const regex: EvaluatorSpec = { criteria: [{ type: 'REGEX', regex: { pattern: '^\\d+$' } }] };
    expect(scored(await runner.score(ctx, regex, request('42')))).toBe(1);
    expect(scored(await runner.score(ctx, regex, request('forty-two')))).toBe(0);
    const evil: EvaluatorSpec = { criteria: [{ type: 'REGEX', regex: { pattern: '^(a+)+$' } }] };
    failedWith(await runner.score(ctx, evil, request(`${'a'.repeat(40)}!`)), 'TIMEOUT');
    await nextIsScored(runner);
  });

  it('JSON_SCHEMA scores 1 for a valid JSON answer (whole or fenced), 0 otherwise', async () => {
    const schema: EvaluatorSpec = {
      criteria: [{ type: 'JSON_SCHEMA', jsonSchema: { schema: { type: 'object', properties: { answer: { type: 'integer' } }, required: ['answer'] } } }],
    };
    expect(scored(await runner.score(ctx, schema, request('{"answer": 4}')))).toBe(1);
    expect(scored(await runner.score(ctx, schema, request('Here:\n```json\n{"answer": 4}\n```')))).toBe(1);
    const invalid = await runner.score(ctx, schema, request('{"answer": "four"}'));
    expect(invalid).toMatchObject({ status: 'scored', score: 0 });
    expect(invalid.status === 'scored' ? invalid.reason : '').toContain('/answer');
    expect(scored(await runner.score(ctx, schema, request('four')))).toBe(0);
  });

  describe('REMOTE', () => {
    let remote: LoopbackServer;
    let remoteRunner: EvaluatorRunner;
    beforeAll(async () => {
      remote = await startLoopbackServer((req, res, body) => {
        const input = JSON.parse(body) as { answer: string; groundTruth: string };
        if (req.url === '/fail') {
          res.statusCode = 503;
          res.end('down');
          return;
        }
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(req.url === '/big' ? { score: 7 } : { score: input.answer === input.groundTruth ? 1 : 0, reason: 'remote' }));
      });
      remoteRunner = createSandboxEvaluatorRunner({ egress: createEgressHttp({ allowLoopback: true }) });
    });
    afterAll(async () => {
      await remoteRunner.close();
      await remote.close();
    });

    it('posts the rollout to the URL and reads its score', async () => {
      const evaluator: EvaluatorSpec = { criteria: [{ type: 'REMOTE', remote: { url: `${remote.origin}/score`, headers: { 'x-token': 't' } } }] };
      expect(await remoteRunner.score(ctx, evaluator, request('4'))).toMatchObject({ status: 'scored', score: 1, reason: 'remote' });
      expect(remote.requests[0]?.headers['x-token']).toBe('t');
      expect(JSON.parse(remote.requests[0]!.body)).toMatchObject({ answer: '4', groundTruth: '4' });
      failedWith(await remoteRunner.score(ctx, { criteria: [{ remote: { url: `${remote.origin}/fail` } }] }, request('4')), 'REMOTE');
      failedWith(await remoteRunner.score(ctx, { criteria: [{ remote: { url: `${remote.origin}/big` } }] }, request('4')), 'INVALID_RESULT');
    });

    it('goes through the guarded client: loopback is refused unless the gateway allows it', async () => {
      const evaluator: EvaluatorSpec = { criteria: [{ type: 'REMOTE', remote: { url: `${remote.origin}/score` } }] };
      const guarded = createSandboxEvaluatorRunner({ egress: createEgressHttp() });
      try {
        failedWith(await guarded.score(ctx, evaluator, request('4')), 'REMOTE');
      } finally {
        await guarded.close();
      }
      failedWith(await runner.score(ctx, evaluator, request('4')), 'FAILED_PRECONDITION');
    });
  });
});

describe('several criteria and many rollouts', () => {
  const both: EvaluatorSpec = {
    criteria: [
      { name: 'exact', exactMatch: {} },
      { name: 'short', codeSnippets: { language: 'js', fileContents: { 'a.js': 'exports.evaluate = (i) => (i.answer.length < 3 ? 1 : 0);' } } },
    ] as EvaluatorCriterionSpec[],
    rollupSettings: { criteriaWeights: { exact: 3, short: 1 }, successThreshold: 0.7 },
  };

  it('rolls criteria up by weight, reports each and whether the threshold passed', async () => {
    const outcome = await runner.score(ctx, both, request('4'));
    expect(outcome).toMatchObject({ status: 'scored', score: 1, details: { passed: true } });
    const partial = await runner.score(ctx, both, request('four'));
    expect(partial).toMatchObject({ status: 'scored', score: 0, details: { passed: false } });
    expect(partial.details.criteria.map((c) => [c.name, c.score])).toEqual([['exact', 0], ['short', 0]]);
    expect(scored(await runner.score(ctx, both, request('44')))).toBe(0.25);
  });

  it('scoreMany keeps the order of the rollouts with bounded concurrency, failures in place', async () => {
    const evaluator = js('export function evaluate(i) { if (i.answer === "loop") for (;;) {} return i.answer === i.groundTruth ? 1 : 0; }');
    const requests = ['4', 'loop', '5', '4', 'loop', '4'].map((t) => request(t));
    const outcomes = await runner.scoreMany(ctx, evaluator, requests, { concurrency: 3 });
    expect(outcomes.map((o) => (o.status === 'scored' ? o.score : o.code))).toEqual([1, 'TIMEOUT', 0, 1, 'TIMEOUT', 1]);
  });
});

describe('Python criteria', () => {
  const whenPython = () => python === undefined;

  it.skipIf(whenPython())('scores with the entry function', async () => {
    const evaluator = py('def evaluate(input):\n    print("seen", input["answer"])\n    return {"score": 1.0 if input["answer"] == input["groundTruth"] else 0.0, "reason": "py"}\n');
    expect(await runner.build(ctx, evaluator)).toEqual({ ok: true });
    const outcome = await runner.score(ctx, evaluator, request('4'));
    expect(outcome).toMatchObject({ status: 'scored', score: 1, reason: 'py' });
    expect(outcome.details.criteria[0]?.logs).toEqual(['seen 4']);
    expect(scored(await runner.score(ctx, evaluator, request('5')))).toBe(0);
  });

  it.skipIf(whenPython())('a syntax error is a build error', async () => {
    expect(await runner.build(ctx, py('def evaluate(input)\n    return 1\n'))).toMatchObject({ ok: false, code: 'INVALID_ARGUMENT' });
  });

  it.skipIf(whenPython())('stops or refuses loops, unbounded allocation, /etc/passwd, sockets, processes and the environment', async () => {
    process.env.BERTH_SANDBOX_TEST_SECRET = 'do-not-leak';
    try {
      failedWith(await runner.score(ctx, py('def evaluate(input):\n    while True:\n        pass\n'), request('4')), 'TIMEOUT');
      failedWith(await runner.score(ctx, py('def evaluate(input):\n    keep = []\n    while True:\n        keep.append(bytearray(10**7))\n'), request('4')), 'MEMORY');
      expect(failedWith(await runner.score(ctx, py('def evaluate(input):\n    return len(open("/etc/passwd").read()) > 0\n'), request('4')), 'THREW')).toContain('PermissionError');
      failedWith(await runner.score(ctx, py(`import socket\ndef evaluate(input):\n    socket.create_connection(("127.0.0.1", ${serverPort}))\n    return 1\n`), request('4')), 'THREW');
      failedWith(await runner.score(ctx, py('import subprocess\ndef evaluate(input):\n    subprocess.run(["id"])\n    return 1\n'), request('4')), 'THREW');
      failedWith(await runner.score(ctx, py('import os\ndef evaluate(input):\n    os.system("id")\n    return 1\n'), request('4')), 'THREW');
      failedWith(await runner.score(ctx, py('def evaluate(input):\n    import ctypes\n    return 1\n'), request('4')), 'THREW');
      const env = await runner.score(ctx, py('import os\ndef evaluate(input):\n    return 1 if "BERTH_SANDBOX_TEST_SECRET" not in os.environ and "PATH" not in os.environ and "HOME" not in os.environ else 0\n'), request('4'));
      expect(scored(env)).toBe(1);
      expect(connections).toBe(0);
      failedWith(await runner.score(ctx, py('def evaluate(input):\n    return 2\n'), request('4')), 'INVALID_RESULT');
    } finally {
      delete process.env.BERTH_SANDBOX_TEST_SECRET;
    }
    await nextIsScored(runner);
  });

  it('without python3 on the host: build FAILED_PRECONDITION, rollouts failed with the reason', async () => {
    const none = createSandboxEvaluatorRunner({ python: false });
    try {
      const evaluator = py('def evaluate(input):\n    return 1\n');
      expect(await none.build(ctx, evaluator)).toMatchObject({ ok: false, code: 'FAILED_PRECONDITION', message: expect.stringContaining('python3') });
      expect(failedWith(await none.score(ctx, evaluator, request('4')), 'FAILED_PRECONDITION')).toContain('python3 is not available');
    } finally {
      await none.close();
    }
  });
});
