/**
 * Rewriting `"model"` in upstream answers from the replica's served id back to the name the client sent.
 *
 * Engines serialize compactly (`"model":"<id>"`), so the fast path is a byte search-and-replace of that
 * exact key-value pair, once per JSON document: a JSON string value cannot hold an unescaped `"`, so the
 * pattern only ever matches a real key. Only the first match is replaced, which is the top-level key in
 * every OpenAI-compatible answer (`id, object, created, model, ...`). Answers formatted differently fall
 * back to a parse and re-serialize (non-streaming) or pass through unchanged (streaming chunks).
 */
export class ModelRewriter {
  private readonly from: Buffer;
  private readonly to: Buffer;

  constructor(
    readonly servedModelId: string,
    readonly clientModel: string,
  ) {
    this.from = Buffer.from(`"model":${JSON.stringify(servedModelId)}`);
    this.to = Buffer.from(`"model":${JSON.stringify(clientModel)}`);
  }

  /** True when there is nothing to rewrite (the replica serves the model under the client's name). */
  get identity(): boolean {
    return this.servedModelId === this.clientModel;
  }

  /** Replaces the first `"model":"<served>"` in `buffer`; returns the buffer unchanged if absent. */
  replaceFirst(buffer: Buffer): { buffer: Buffer; found: boolean } {
    const at = buffer.indexOf(this.from);
    if (at < 0) return { buffer, found: false };
    return { buffer: Buffer.concat([buffer.subarray(0, at), this.to, buffer.subarray(at + this.from.length)]), found: true };
  }

  /** A whole non-streaming JSON answer. */
  rewriteDocument(body: Buffer): Buffer {
    if (this.identity) return body;
    const fast = this.replaceFirst(body);
    if (fast.found) return fast.buffer;
    try {
      const parsed: unknown = JSON.parse(body.toString('utf8'));
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) && 'model' in parsed) {
        return Buffer.from(JSON.stringify({ ...parsed, model: this.clientModel }));
      }
    } catch {}
    return body;
  }

  /** Replaces the served id in a piece of text (upstream error messages). */
  rewriteText(text: string): string {
    return this.identity ? text : text.split(this.servedModelId).join(this.clientModel);
  }
}

const eventEnd = Buffer.from('\n\n');

/**
 * Server-Sent Events pass-through with the model rewrite applied once per event. Bytes are forwarded as
 * soon as an event is complete (engines flush whole events, so in practice nothing waits); a partial
 * event is held until its end arrives. Works on bytes, never decoding UTF-8, so split code points are safe.
 */
export class SseModelRewriter {
  private pending: Buffer | undefined;

  constructor(private readonly rewriter: ModelRewriter) {}

  /** Bytes to forward now for one upstream chunk (possibly empty). */
  push(chunk: Buffer): Buffer {
    const data = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = undefined;
    const lastEnd = data.lastIndexOf(eventEnd);
    if (lastEnd < 0) {
      this.pending = data;
      return Buffer.alloc(0);
    }
    const completeEnd = lastEnd + eventEnd.length;
    if (completeEnd < data.length) this.pending = data.subarray(completeEnd);
    return this.rewriteEvents(data.subarray(0, completeEnd));
  }

  /** Whatever is left when the upstream ends (an unterminated last event), rewritten. */
  end(): Buffer {
    const rest = this.pending;
    this.pending = undefined;
    return rest ? this.rewriteEvents(rest) : Buffer.alloc(0);
  }

  private rewriteEvents(events: Buffer): Buffer {
    const parts: Buffer[] = [];
    let start = 0;
    while (start < events.length) {
      const boundary = events.indexOf(eventEnd, start);
      const end = boundary < 0 ? events.length : boundary + eventEnd.length;
      parts.push(this.rewriter.replaceFirst(events.subarray(start, end)).buffer);
      start = end;
    }
    return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
  }
}
