import type { InferenceEvent, ModelTarget, Telemetry } from '@berth/core';
import type { InferenceRequest } from './inference-request.js';

const promptKey = Buffer.from('"prompt_tokens":');
const completionKey = Buffer.from('"completion_tokens":');

/** The integer after `key` in `buffer` (JSON `"key":123`), searching from the end (usage comes last); undefined when absent. */
function integerAfter(buffer: Buffer, key: Buffer): number | undefined {
  const at = buffer.lastIndexOf(key);
  if (at < 0) return undefined;
  let i = at + key.length;
  while (buffer[i] === 0x20) i += 1;
  let value = 0;
  const start = i;
  for (; i < buffer.length; i += 1) {
    const digit = buffer[i]! - 0x30;
    if (digit < 0 || digit > 9) break;
    value = value * 10 + digit;
  }
  return i > start ? value : undefined;
}

/**
 * What one inference answer reports to {@link Telemetry}: the replica's usage (found by a byte search, so
 * the proxy still never parses what it forwards), and for streams the time to the first chunk and the gaps
 * between chunks. Created only when telemetry is enabled.
 */
export class InferenceMeasurement {
  private promptTokens: number | undefined;
  private completionTokens: number | undefined;
  private firstChunkSeconds: number | undefined;
  private lastChunkAt = 0;
  private readonly gaps: number[] = [];

  constructor(
    private readonly telemetry: Telemetry,
    private readonly target: ModelTarget,
    private readonly inference: InferenceRequest,
    /** Seconds since the request arrived (Fastify's `reply.elapsedTime` / 1000). */
    private readonly elapsedSeconds: () => number,
  ) {}

  /** A whole answer's body. */
  body(body: Buffer): void {
    this.usage(body);
  }

  /** One chunk of a streamed answer, as it is forwarded. */
  chunk(chunk: Buffer): void {
    const now = performance.now();
    if (this.firstChunkSeconds === undefined) this.firstChunkSeconds = this.elapsedSeconds();
    else this.gaps.push((now - this.lastChunkAt) / 1000);
    this.lastChunkAt = now;
    this.usage(chunk);
  }

  private usage(bytes: Buffer): void {
    const completion = integerAfter(bytes, completionKey);
    if (completion === undefined) return;
    this.completionTokens = completion;
    this.promptTokens = integerAfter(bytes, promptKey) ?? this.promptTokens;
  }

  /** Reports the answer once it ended (`status` is the replica's). */
  end(status: number): void {
    const event: InferenceEvent = {
      deployment: this.target.deployment,
      model: this.target.model,
      operation: this.inference.operation,
      stream: this.inference.stream,
      status,
      ...(this.promptTokens !== undefined ? { promptTokens: this.promptTokens } : {}),
      ...(this.completionTokens !== undefined ? { completionTokens: this.completionTokens } : {}),
      ...(this.firstChunkSeconds !== undefined ? { timeToFirstTokenSeconds: this.firstChunkSeconds, interTokenSeconds: this.gaps } : {}),
    };
    this.telemetry.inference(event);
  }
}
