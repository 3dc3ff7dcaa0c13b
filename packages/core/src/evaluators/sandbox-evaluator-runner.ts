import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RequestContext } from '../contracts/request-context.js';
import type { EgressHttp } from '../ports/egress-http.js';
import type {
  CriterionOutcome, EvaluationOutcome, EvaluationRequest, EvaluatorBuildResult, EvaluatorCriterionSpec, EvaluatorRunner, EvaluatorSpec,
  ScoreManyOptions,
} from '../ports/evaluator-runner.js';
import type { JsonObject } from '../ports/json.js';
import { compileJavaScriptCriterion, type CompileResult } from './compile-javascript.js';
import { codeLanguage, criterionKind, criterionProblem, entryFileOf, schemaValidator } from './criteria.js';
import { criterionInput, failure, resultOfReply, resultOfValue, type CriterionResult } from './criterion-results.js';
import { PythonRunner } from './python-runner.js';
import { detectSandboxHost, type SandboxHost } from './sandbox-command.js';
import { SandboxPool, type SandboxReply } from './sandbox-pool.js';

export interface SandboxEvaluatorRunnerOptions {
  /** Directory for the sandbox programs and scratch directories; default a new one under the OS temp directory. */
  readonly directory?: string;
  /** Warm JavaScript sandbox processes (each runs one call at a time). Default 2. */
  readonly workers?: number;
  /** Most evaluations in flight in one `scoreMany` (and the cap of its `concurrency`). Default 8. */
  readonly concurrency?: number;
  /** Time limit of one criterion call, ms. Default 5000. */
  readonly timeoutMs?: number;
  /** Memory limit of a sandbox process, MiB (V8 old space for JavaScript, address space for Python). Default 128 (JS), 512 (Python). */
  readonly memoryMb?: number;
  readonly pythonMemoryMb?: number;
  /** After the time limit, how long a process has before SIGKILL, ms. Default 1000. */
  readonly killGraceMs?: number;
  /** The Python interpreter (looked up on PATH once), or `false` for none. Default `python3`. */
  readonly python?: string | false;
  /** The guarded outbound client REMOTE criteria go through; without one they fail (FAILED_PRECONDITION). */
  readonly egress?: EgressHttp;
  /** Time limit of a REMOTE criterion's exchange, ms. Default 30000. */
  readonly remoteTimeoutMs?: number;
  /** Override of the detected host abilities (tests). */
  readonly host?: SandboxHost;
}

const maxReplyBytes = 1024 * 1024;

interface Engines {
  readonly directory: string;
  readonly pool: SandboxPool;
  readonly python: PythonRunner;
}

/**
 * The default {@link EvaluatorRunner}: JavaScript and TypeScript criteria in warm sandbox processes
 * (`SandboxPool`), Python criteria in one `python3` process per call (`PythonRunner`),
 * EXACT_MATCH and JSON_SCHEMA in process, REGEX in the JavaScript sandbox (a pathological pattern
 * cannot stall the gateway), REMOTE through the guarded outbound client. Processes are started on first
 * use, so a gateway that never evaluates starts none.
 */
export function createSandboxEvaluatorRunner(options: SandboxEvaluatorRunnerOptions = {}): EvaluatorRunner {
  return new SandboxEvaluatorRunner(options);
}

class SandboxEvaluatorRunner implements EvaluatorRunner {
  private engines: Engines | undefined;
  private readonly compiled = new Map<string, Promise<CompileResult>>();
  private readonly timeoutMs: number;
  private readonly concurrency: number;
  private pythonSlots: number;
  private readonly pythonWaiting: Array<() => void> = [];
  private closed = false;

  constructor(private readonly options: SandboxEvaluatorRunnerOptions) {
    this.timeoutMs = options.timeoutMs ?? 5_000;
    this.concurrency = Math.max(1, options.concurrency ?? 8);
    this.pythonSlots = Math.max(1, options.workers ?? 2);
  }

  async build(ctx: RequestContext, evaluator: EvaluatorSpec): Promise<EvaluatorBuildResult> {
    const criteria = evaluator.criteria ?? [];
    if (criteria.length === 0) return { ok: false, code: 'INVALID_ARGUMENT', message: 'the evaluator has no criteria' };
    for (const [index, criterion] of criteria.entries()) {
      const label = `criteria[${index}]${criterion.name ? ` (${criterion.name})` : ''}`;
      const problem = criterionProblem(criterion);
      if (problem) return { ok: false, code: 'INVALID_ARGUMENT', message: `${label}.${problem.field}: ${problem.message}` };
      if (criterionKind(criterion) !== 'CODE_SNIPPETS') continue;
      const code = criterion.codeSnippets ?? {};
      if (codeLanguage(code.language) === 'python') {
        const python = this.ensureEngines().python;
        if ((await python.available()) === undefined) {
          return { ok: false, code: 'FAILED_PRECONDITION', message: `${label}: python3 is not available on this host` };
        }
        const problem = syntaxProblem(await python.check(code.fileContents ?? {}));
        if (problem !== undefined) return { ok: false, code: 'INVALID_ARGUMENT', message: `${label}: ${problem}` };
      } else {
        const compiled = await this.compile(criterion);
        if (!compiled.ok) return { ok: false, code: 'INVALID_ARGUMENT', message: `${label}: ${compiled.message}` };
      }
    }
    void ctx;
    return { ok: true };
  }

  async score(ctx: RequestContext, evaluator: EvaluatorSpec, request: EvaluationRequest): Promise<EvaluationOutcome> {
    const started = performance.now();
    const criteria = evaluator.criteria ?? [];
    const outcomes: CriterionOutcome[] = [];
    for (const [index, criterion] of criteria.entries()) {
      const name = criterion.name !== undefined && criterion.name !== '' ? criterion.name : `criterion-${index}`;
      const result = ctx.signal?.aborted ? failure('CANCELLED', 'the evaluation was cancelled') : await this.runCriterion(ctx, criterion, request);
      outcomes.push({ name, ...result });
    }
    return rollUp(evaluator, outcomes, performance.now() - started);
  }

  async scoreMany(ctx: RequestContext, evaluator: EvaluatorSpec, requests: readonly EvaluationRequest[], options: ScoreManyOptions = {}): Promise<EvaluationOutcome[]> {
    const limit = Math.max(1, Math.min(options.concurrency ?? this.concurrency, this.concurrency));
    const outcomes: EvaluationOutcome[] = new Array<EvaluationOutcome>(requests.length);
    let next = 0;
    const lane = async () => {
      while (next < requests.length) {
        const index = next;
        next += 1;
        outcomes[index] = await this.score(ctx, evaluator, requests[index]!);
      }
    };
    await Promise.all(Array.from({ length: Math.min(limit, requests.length) }, lane));
    return outcomes;
  }

  async close(): Promise<void> {
    this.closed = true;
    const engines = this.engines;
    this.engines = undefined;
    if (engines) {
      await engines.pool.close();
      if (this.options.directory === undefined) rmSync(engines.directory, { recursive: true, force: true });
    }
  }

  private ensureEngines(): Engines {
    if (this.closed) throw new Error('the evaluator runner is closed');
    if (this.engines === undefined) {
      const directory = this.options.directory ?? mkdtempSync(join(tmpdir(), 'berth-evaluators-'));
      const host = this.options.host ?? detectSandboxHost();
      const killGraceMs = this.options.killGraceMs ?? 1_000;
      this.engines = {
        directory,
        pool: new SandboxPool({ directory, size: Math.max(1, this.options.workers ?? 2), memoryMb: this.options.memoryMb ?? 128, killGraceMs, maxReplyBytes, host }),
        python: new PythonRunner({
          directory, python: this.options.python ?? 'python3', memoryMb: this.options.pythonMemoryMb ?? 512, killGraceMs, maxReplyBytes, host,
        }),
      };
    }
    return this.engines;
  }

  /** A JavaScript/TypeScript criterion compiled once per distinct code (a bounded cache). */
  private compile(criterion: EvaluatorCriterionSpec): Promise<CompileResult> {
    const code = criterion.codeSnippets ?? {};
    const language = codeLanguage(code.language) === 'typescript' ? 'typescript' : 'javascript';
    const files = code.fileContents ?? {};
    const entryFile = entryFileOf(language, files, code.entryFile) ?? '';
    const entryFunc = code.entryFunc !== undefined && code.entryFunc !== '' ? code.entryFunc : 'evaluate';
    const key = createHash('sha256').update(JSON.stringify([language, files, entryFile, entryFunc])).digest('hex');
    let compiled = this.compiled.get(key);
    if (compiled === undefined) {
      if (this.compiled.size >= 256) this.compiled.delete(this.compiled.keys().next().value!);
      compiled = compileJavaScriptCriterion({ fileContents: files, entryFile, entryFunc, typescript: language === 'typescript' });
      this.compiled.set(key, compiled);
    }
    return compiled;
  }

  private async runCriterion(ctx: RequestContext, criterion: EvaluatorCriterionSpec, request: EvaluationRequest): Promise<CriterionResult> {
    const problem = criterionProblem(criterion);
    if (problem) return failure('BUILD', `${problem.field}: ${problem.message}`);
    switch (criterionKind(criterion)) {
      case 'CODE_SNIPPETS':
        return this.runCode(criterion, request);
      case 'EXACT_MATCH':
        return exactMatch(criterion, request);
      case 'REGEX':
        return this.runRegex(criterion, request);
      case 'JSON_SCHEMA':
        return jsonSchema(criterion, request);
      case 'REMOTE':
        return this.runRemote(ctx, criterion, request);
      default:
        return failure('BUILD', 'the criterion has no kind');
    }
  }

  private async runCode(criterion: EvaluatorCriterionSpec, request: EvaluationRequest): Promise<CriterionResult> {
    const code = criterion.codeSnippets ?? {};
    const entryFunc = code.entryFunc !== undefined && code.entryFunc !== '' ? code.entryFunc : 'evaluate';
    if (codeLanguage(code.language) === 'python') {
      const python = this.ensureEngines().python;
      if ((await python.available()) === undefined) return failure('FAILED_PRECONDITION', 'python3 is not available on this host');
      const files = code.fileContents ?? {};
      await this.acquirePython();
      try {
        return resultOfReply(await python.call({
          files, entryFile: entryFileOf('python', files, code.entryFile) ?? '', entryFunc, input: criterionInput(request), timeoutMs: this.timeoutMs,
        }));
      } finally {
        this.releasePython();
      }
    }
    const compiled = await this.compile(criterion);
    if (!compiled.ok) return failure('BUILD', compiled.message);
    const { key, source, filename } = compiled.compiled;
    return resultOfReply(await this.ensureEngines().pool.run({ key, source, filename, input: JSON.stringify(criterionInput(request)), timeoutMs: this.timeoutMs }));
  }

  private async runRegex(criterion: EvaluatorCriterionSpec, request: EvaluationRequest): Promise<CriterionResult> {
    const pattern = JSON.stringify(criterion.regex?.pattern ?? '');
    const flags = JSON.stringify(criterion.regex?.flags ?? '');
    const source = `globalThis.__berthModule = function () { var re = new RegExp(${pattern}, ${flags});
      return { exports: { evaluate: function (input) { re.lastIndex = 0; return re.test(input.answer) ? 1 : 0; } }, entryFunc: 'evaluate' }; };`;
    const key = `regex-${createHash('sha256').update(source).digest('hex').slice(0, 32)}`;
    const input = JSON.stringify({ answer: request.answer.text });
    const result = resultOfReply(await this.ensureEngines().pool.run({ key, source, filename: 'regex.js', input, timeoutMs: this.timeoutMs }));
    return result.failure ? result : { ...result, reason: result.score === 1 ? 'the answer matches the pattern' : 'the answer does not match the pattern' };
  }

  private async runRemote(ctx: RequestContext, criterion: EvaluatorCriterionSpec, request: EvaluationRequest): Promise<CriterionResult> {
    const egress = this.options.egress;
    if (egress === undefined) return failure('FAILED_PRECONDITION', 'no outbound HTTP client is configured for remote evaluators');
    const url = criterion.remote?.url ?? '';
    try {
      const response = await egress.request(ctx, url, {
        method: 'POST',
        headers: { ...criterion.remote?.headers, 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(criterionInput(request)),
        totalTimeoutMs: this.options.remoteTimeoutMs ?? 30_000,
        maxResponseBytes: maxReplyBytes,
        redirect: 'error',
      });
      if (response.status < 200 || response.status > 299) return failure('REMOTE', `the remote evaluator answered HTTP ${response.status}`);
      let body: unknown;
      try {
        body = JSON.parse(response.text());
      } catch {
        return failure('REMOTE', 'the remote evaluator answered something that is not JSON');
      }
      return resultOfValue(body);
    } catch (error) {
      return failure('REMOTE', `the remote evaluator could not be reached: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private async acquirePython(): Promise<void> {
    if (this.pythonSlots > 0) {
      this.pythonSlots -= 1;
      return;
    }
    await new Promise<void>((resolve) => this.pythonWaiting.push(resolve));
  }

  private releasePython(): void {
    const waiter = this.pythonWaiting.shift();
    if (waiter) waiter();
    else this.pythonSlots += 1;
  }
}

/** The syntax error a Python check found, if any. */
function syntaxProblem(reply: SandboxReply): string | undefined {
  if (!reply.ok) return reply.message;
  try {
    const answer = JSON.parse(reply.result) as { kind?: unknown; value?: unknown };
    return answer.kind === 'ok' ? undefined : String(answer.value);
  } catch {
    return 'the syntax check answered something that is not JSON';
  }
}

/** EXACT_MATCH: the answer equals the row's ground-truth field (trimmed, case-sensitive by default). */
function exactMatch(criterion: EvaluatorCriterionSpec, request: EvaluationRequest): CriterionResult {
  const config = criterion.exactMatch ?? {};
  const field = config.groundTruthField ?? 'ground_truth';
  const truth = request.row[field] ?? (config.groundTruthField === undefined ? request.row.groundTruth : undefined);
  if (truth === undefined || truth === null) return failure('FAILED_PRECONDITION', `the row has no ${field} field to compare with`);
  const trim = config.trimWhitespace ?? true;
  const normalise = (text: string) => {
    const trimmed = trim ? text.trim() : text;
    return config.caseSensitive === false ? trimmed.toLowerCase() : trimmed;
  };
  const expected = normalise(typeof truth === 'string' ? truth : JSON.stringify(truth));
  const equal = normalise(request.answer.text) === expected;
  return { score: equal ? 1 : 0, reason: equal ? 'the answer equals the ground truth' : 'the answer differs from the ground truth' };
}

/** The JSON in an answer: the whole text, else the first fenced ``` block. */
function answerJson(text: string): { ok: true; value: unknown } | { ok: false } {
  const attempts = [text];
  const fence = text.indexOf('```');
  if (fence >= 0) {
    const start = text.indexOf('\n', fence);
    const end = start >= 0 ? text.indexOf('```', start) : -1;
    if (start >= 0 && end > start) attempts.push(text.slice(start + 1, end));
  }
  for (const attempt of attempts) {
    try {
      return { ok: true, value: JSON.parse(attempt) };
    } catch {
      // try the next form
    }
  }
  return { ok: false };
}

/** JSON_SCHEMA: 1 when the answer is JSON valid against the schema, else 0 with the first error. */
function jsonSchema(criterion: EvaluatorCriterionSpec, request: EvaluationRequest): CriterionResult {
  const parsed = answerJson(request.answer.text);
  if (!parsed.ok) return { score: 0, reason: 'the answer is not JSON' };
  const validate = schemaValidator(criterion.jsonSchema?.schema as JsonObject);
  if (validate(parsed.value)) return { score: 1, reason: 'the answer is valid against the schema' };
  const first = validate.errors?.[0];
  return { score: 0, reason: `the answer is not valid against the schema: ${first ? `${first.instancePath || '/'} ${first.message ?? ''}`.trim() : 'invalid'}` };
}

/** Combines the criteria: any failure fails the rollout; otherwise the (weighted) mean, or the first score with skipRollup. */
function rollUp(evaluator: EvaluatorSpec, criteria: CriterionOutcome[], durationMs: number): EvaluationOutcome {
  const failed = criteria.find((c) => c.failure !== undefined);
  if (failed?.failure) {
    return { status: 'failed', code: failed.failure.code, reason: `${failed.name}: ${failed.failure.reason}`, details: { criteria, durationMs } };
  }
  if (criteria.length === 0) return { status: 'failed', code: 'BUILD', reason: 'the evaluator has no criteria', details: { criteria, durationMs } };
  const settings = evaluator.rollupSettings ?? {};
  let score: number;
  if (settings.skipRollup) score = criteria[0]!.score ?? 0;
  else {
    const weights = settings.criteriaWeights;
    let total = 0;
    let sum = 0;
    for (const c of criteria) {
      const weight = weights === undefined ? 1 : weights[c.name] ?? 0;
      total += weight;
      sum += weight * (c.score ?? 0);
    }
    score = total > 0 ? sum / total : criteria.reduce((s, c) => s + (c.score ?? 0), 0) / criteria.length;
  }
  score = Math.min(1, Math.max(0, score));
  const reason = criteria.length === 1 ? criteria[0]!.reason : undefined;
  const passed = settings.successThreshold === undefined ? undefined : score >= settings.successThreshold;
  return {
    status: 'scored',
    score,
    ...(reason !== undefined ? { reason } : {}),
    details: { criteria, ...(passed !== undefined ? { passed } : {}), durationMs },
  };
}
