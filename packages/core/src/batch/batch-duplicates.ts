/**
 * Duplicate `custom_id`s in a batch input. The reference provider requires `custom_id` to be unique across
 * the rows of an input (results are matched to inputs by it); Berth keeps the job running and fails the
 * repeats instead of the whole job: the first valid row with a custom_id runs, every later row with the
 * same custom_id is a failed row (`duplicate_custom_id`, naming the first row) in the error file.
 *
 * The repeats are found in VALIDATING, over every input row (also those a continued job skips, so a
 * repeat stays a repeat in a continuation), and kept beside the job's chunk files until it finishes, so a
 * resumed run fails the same rows.
 */
import type { RequestContext } from '../contracts/request-context.js';
import type { Storage } from '../ports/storage.js';
import { chunkPrefix } from '../resources/batch-inference-jobs/batch-inference-job-runs.js';
import { parseBatchRow } from './batch-rows.js';

function blobKey(jobName: string): string {
  return `${chunkPrefix(jobName)}duplicates.json`;
}

export class DuplicateCustomIds {
  private readonly firstRow = new Map<string, number>();
  /** `[row, first row with its custom_id]`, in input order. */
  private readonly repeats: [number, number][] = [];

  /** Notes input row `rowNumber` (1-based): a valid row whose custom_id an earlier valid row has is a repeat. */
  see(line: string, rowNumber: number): void {
    const row = parseBatchRow(line, rowNumber, {});
    if (!row.ok) return;
    const first = this.firstRow.get(row.customId);
    if (first === undefined) this.firstRow.set(row.customId, rowNumber);
    else this.repeats.push([rowNumber, first]);
  }

  /** The repeats found: row → the first row with its custom_id. */
  get rows(): ReadonlyMap<number, number> {
    return new Map(this.repeats);
  }

  /** Stores the repeats for the job's run (removed with its chunk files). */
  async save(ctx: RequestContext, storage: Storage, jobName: string): Promise<void> {
    await storage.blobs.put(ctx, blobKey(jobName), Buffer.from(JSON.stringify(this.repeats), 'utf8'), 'application/json');
  }

  /** The repeats stored for the job's run (none when VALIDATING stored nothing). */
  static async load(ctx: RequestContext, storage: Storage, jobName: string): Promise<ReadonlyMap<number, number>> {
    const blob = await storage.blobs.get(ctx, blobKey(jobName));
    if (!blob) return new Map();
    const pairs = JSON.parse(Buffer.from(blob.bytes.buffer, blob.bytes.byteOffset, blob.bytes.byteLength).toString('utf8')) as [number, number][];
    return new Map(pairs);
  }
}
