import { invalidArgument } from '../../errors/index.js';

/** Most malformed rows whose reason a dataset keeps (the count covers them all). */
export const malformedRowSampleLimit = 100;

/** One row of a batch dataset that could not be used, with the reason. */
export interface MalformedRow {
  readonly filename: string;
  /** 1-based line number in the file. */
  readonly line: number;
  readonly reason: string;
}

/** What checking a JSONL file found. */
export interface JsonlRowCount {
  /** Usable rows (the dataset's exampleCount adds them up). */
  readonly rows: number;
  /** Characters of the usable rows, for the token estimate. */
  readonly characters: number;
  /** Rows of a batch file that cannot be used: their number and the first {@link malformedRowSampleLimit}. */
  readonly malformedRows: number;
  readonly malformedSamples: readonly MalformedRow[];
}

/**
 * Checks the rows of a JSONL file as its bytes arrive (one line in memory at a time), against the
 * dataset format:
 * - a training file (rows without `custom_id`): every line is a JSON object with `messages` (CHAT, RL)
 *   or `prompt` (COMPLETION); the first bad line refuses the file (INVALID_ARGUMENT naming file and line);
 * - a batch file (its first JSON object has `custom_id`, the batch row format `{custom_id, body}`):
 *   rows without a `custom_id` string, a `body` object with `messages` (`prompt` in a COMPLETION
 *   dataset) or valid JSON are counted as malformed with their reason instead, and the file is kept; a
 *   batch job reading it later counts them as failed rows.
 * Blank lines are skipped. Lines before the first JSON object are judged once the file's kind is known.
 */
export class JsonlRowChecker {
  private readonly decoder = new TextDecoder('utf-8');
  private carry = '';
  private lineNumber = 0;
  private kind: 'unknown' | 'training' | 'batch' = 'unknown';
  private held: MalformedRow[] = [];
  private rows = 0;
  private characters = 0;
  private malformedRows = 0;
  private readonly samples: MalformedRow[] = [];

  constructor(
    private readonly filename: string,
    private readonly format: string,
  ) {}

  /** Checks the complete lines `chunk` ends; keeps the unfinished one. */
  push(chunk: Uint8Array): void {
    const text = this.carry + this.decoder.decode(chunk, { stream: true });
    const lines = text.split('\n');
    this.carry = lines.pop() ?? '';
    for (const line of lines) this.checkLine(line);
  }

  /** Checks the last line and answers the counts. Throws INVALID_ARGUMENT for a refused file. */
  end(): JsonlRowCount {
    this.checkLine(this.carry + this.decoder.decode());
    this.carry = '';
    const first = this.held[0];
    if (first !== undefined) throw invalidArgument(`${first.filename} line ${first.line}: ${first.reason}`);
    const sample = this.samples[0];
    if (this.rows === 0 && sample !== undefined) throw invalidArgument(`${this.filename} has no usable batch row (line ${sample.line}: ${sample.reason})`);
    return { rows: this.rows, characters: this.characters, malformedRows: this.malformedRows, malformedSamples: [...this.samples] };
  }

  private checkLine(raw: string): void {
    this.lineNumber += 1;
    const line = raw.trim();
    if (line === '') return;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch {
      this.malformed('not valid JSON');
      return;
    }
    if (row === null || typeof row !== 'object' || Array.isArray(row)) {
      this.malformed('each line must be a JSON object');
      return;
    }
    const record = row as Record<string, unknown>;
    if (this.kind === 'unknown') this.decideKind('custom_id' in record ? 'batch' : 'training');
    const problem = this.kind === 'batch' ? this.batchRowProblem(record) : this.trainingRowProblem(record);
    if (problem !== undefined) {
      this.malformed(problem);
      return;
    }
    this.rows += 1;
    this.characters += line.length;
  }

  private trainingRowProblem(record: Record<string, unknown>): string | undefined {
    if ((this.format === 'CHAT' || this.format === 'RL') && !Array.isArray(record.messages)) return `a ${this.format} dataset row needs a "messages" array`;
    if (this.format === 'COMPLETION' && typeof record.prompt !== 'string') return 'a COMPLETION dataset row needs a "prompt" string';
    return undefined;
  }

  private batchRowProblem(record: Record<string, unknown>): string | undefined {
    if (typeof record.custom_id !== 'string' || record.custom_id === '') return 'a batch row needs a non-empty "custom_id" string';
    const body = record.body;
    if (body === null || typeof body !== 'object' || Array.isArray(body)) return 'a batch row needs a "body" object (the request)';
    const request = body as Record<string, unknown>;
    if (this.format === 'COMPLETION') return typeof request.prompt === 'string' ? undefined : 'a COMPLETION batch row needs a "body.prompt" string';
    return Array.isArray(request.messages) ? undefined : 'a batch row needs a "body.messages" array';
  }

  private decideKind(kind: 'training' | 'batch'): void {
    this.kind = kind;
    const held = this.held;
    this.held = [];
    for (const row of held) this.malformed(row.reason, row.line);
  }

  /** A bad line: refuses a training file, is counted in a batch file, waits while the kind is unknown. */
  private malformed(reason: string, line = this.lineNumber): void {
    const row: MalformedRow = { filename: this.filename, line, reason };
    if (this.kind === 'training') throw invalidArgument(`${row.filename} line ${row.line}: ${row.reason}`);
    if (this.kind === 'unknown') {
      // A file whose first lines are all bad is refused at its first one without reading on.
      if (this.held.length >= malformedRowSampleLimit) throw invalidArgument(`${this.filename} line ${this.held[0]!.line}: ${this.held[0]!.reason}`);
      this.held.push(row);
      return;
    }
    this.malformedRows += 1;
    if (this.samples.length < malformedRowSampleLimit) this.samples.push(row);
  }
}

/** Rows of a whole JSONL text, checked against the dataset format (see {@link JsonlRowChecker}). */
export function countJsonlExamples(filename: string, text: string, format: string): JsonlRowCount {
  const checker = new JsonlRowChecker(filename, format);
  checker.push(new TextEncoder().encode(text));
  return checker.end();
}
