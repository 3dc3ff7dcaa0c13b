import type { FastifyReply } from 'fastify';
import type { JsonObject, ResponseEventSink } from '@berth/core';
import { startSse } from './start-sse.js';

/** Idle time after which a comment line is written, so proxies and clients keep the stream open. Default 15 s. */
export const defaultHeartbeatMs = 15_000;

/**
 * A Responses stream over the raw reply: `event: <type>` / `data: <json>` pairs, headers sent with the
 * first event (so anything that fails before it is still answered as an HTTP error), a heartbeat
 * comment while idle, backpressure through `ready()`. Writes after the client left are dropped.
 */
export class SseEventSink implements ResponseEventSink {
  private startedValue = false;
  private lastWrite = 0;
  private lastSequence = -1;
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(
    private readonly reply: FastifyReply,
    private readonly requestId: string,
    private readonly heartbeatMs = defaultHeartbeatMs,
  ) {}

  /** True once headers went out: from then on failures can only be told inside the stream. */
  get started(): boolean {
    return this.startedValue;
  }

  send(event: JsonObject): void {
    if (!this.startedValue) this.start();
    if (typeof event.sequence_number === 'number') this.lastSequence = event.sequence_number;
    this.write(`event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`);
  }

  ready(): Promise<void> {
    const res = this.reply.raw;
    if (!res.writableNeedDrain || res.destroyed) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        res.off('drain', done);
        res.off('close', done);
        resolve();
      };
      res.once('drain', done);
      res.once('close', done);
    });
  }

  /** A last `error` event for a failure the response could not record itself (no top-level `error` key: clients raise on one). */
  error(code: string, message: string): void {
    this.send({ type: 'error', sequence_number: this.lastSequence + 1, code, message, param: null });
  }

  /** Ends the stream (after its last event). */
  end(): void {
    this.stopHeartbeat();
    const res = this.reply.raw;
    if (this.startedValue && !res.writableEnded && !res.destroyed) res.end();
  }

  /** Cuts the connection (the client left, or the stream cannot be finished). */
  destroy(): void {
    this.stopHeartbeat();
    this.reply.raw.destroy();
  }

  private start(): void {
    this.startedValue = true;
    startSse(this.reply, this.requestId);
    this.heartbeat = setInterval(() => {
      if (Date.now() - this.lastWrite >= this.heartbeatMs) this.write(': keep-alive\n\n');
    }, this.heartbeatMs);
    this.heartbeat.unref();
  }

  private write(text: string): void {
    const res = this.reply.raw;
    if (res.destroyed || res.writableEnded) return;
    res.write(text);
    this.lastWrite = Date.now();
  }

  private stopHeartbeat(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = undefined;
  }
}
