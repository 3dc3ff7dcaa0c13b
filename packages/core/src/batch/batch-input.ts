/**
 * What a batch job reads: its input dataset's rows and, for a continued job, the rows its chain already
 * answered. Every file is read as a stream of byte chunks and split into lines as the chunks come, so a
 * job holds one chunk and one line of its input at a time, whatever the input's size.
 */
import type { RequestContext } from '../contracts/request-context.js';
import { Code, GatewayError } from '../errors/index.js';
import type { Storage } from '../ports/storage.js';
import type { BatchInferenceJob } from '../resources/batch-inference-jobs/batch-inference-job-schema.js';
import { readJob } from '../resources/batch-inference-jobs/batch-inference-job-runs.js';
import { datasetBlobKey } from './batch-output.js';
import type { PipelineRow } from './batch-pipeline.js';

/** A blob's bytes as the store streams them, in order; nothing when it is absent. */
export async function* blobChunks(ctx: RequestContext, storage: Storage, key: string): AsyncGenerator<Uint8Array> {
  const read = await storage.blobs.getStream(ctx, key);
  if (read) yield* read.body;
}

/**
 * The non-blank lines of UTF-8 JSONL text arriving as byte chunks, trimmed, one at a time: a chunk is
 * decoded as it comes (a character cut between chunks is completed by the next) and only the line not
 * yet ended is carried over.
 */
export async function* jsonlLines(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8');
  let carry = '';
  for await (const chunk of chunks) {
    const text = carry + decoder.decode(chunk, { stream: true });
    let start = 0;
    for (let end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n', start)) {
      const line = text.slice(start, end).trim();
      start = end + 1;
      if (line !== '') yield line;
    }
    carry = text.slice(start);
  }
  const last = (carry + decoder.decode()).trim();
  if (last !== '') yield last;
}

/** The input dataset's rows, one JSONL line at a time, over its `.jsonl` files in name order. */
export async function* inputLines(ctx: RequestContext, storage: Storage, dataset: string): AsyncGenerator<string> {
  const keys = (await storage.blobs.list(ctx, datasetBlobKey(dataset, ''))).filter((k) => k.endsWith('.jsonl')).sort();
  for (const key of keys) yield* jsonlLines(blobChunks(ctx, storage, key));
}

/**
 * The input rows a job runs, numbered by their position among the input's non-blank lines: all of them,
 * or for a continued job those not in `done` (answered by a job of its chain).
 */
export async function* selectedRows(ctx: RequestContext, storage: Storage, dataset: string, done: ReadonlySet<number>): AsyncGenerator<PipelineRow> {
  let number = 0;
  for await (const line of inputLines(ctx, storage, dataset)) {
    number += 1;
    if (!done.has(number)) yield { number, line };
  }
}

/**
 * Rows answered by the jobs a continued job continues (following `continuedFromJobName` back): the `row`
 * numbers of their output datasets' results files. Empty for a job that continues none.
 */
export async function doneRows(ctx: RequestContext, storage: Storage, job: BatchInferenceJob): Promise<Set<number>> {
  const done = new Set<number>();
  const seen = new Set<string>();
  let previousName = job.continuedFromJobName ?? '';
  while (previousName !== '' && !seen.has(previousName)) {
    seen.add(previousName);
    const previous = await readJob(ctx, storage.resources, previousName);
    if (!previous) throw new GatewayError(Code.FAILED_PRECONDITION, `continued job ${previousName} no longer exists`);
    const output = previous.outputDatasetId ?? '';
    if (output !== '') {
      const prefix = datasetBlobKey(output, '');
      for (const key of (await storage.blobs.list(ctx, prefix)).filter((k) => /^results(-\d+)?\.jsonl$/.test(k.slice(prefix.length)))) {
        for await (const line of jsonlLines(blobChunks(ctx, storage, key))) {
          const row = (JSON.parse(line) as { row?: unknown }).row;
          if (typeof row === 'number') done.add(row);
        }
      }
    }
    previousName = previous.continuedFromJobName ?? '';
  }
  return done;
}
