import { EventEmitter } from 'node:events';
import { Code, GatewayError, type Principal, type RequestContext } from '@berth/core';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** What an inference request fails with once its client closed the connection. */
export const clientGone = new GatewayError(Code.CANCELLED, 'the client closed the connection', { reason: 'CLIENT_CLOSED' });

/**
 * The client's side of one exchange going away. An EventEmitter rather than an AbortController because
 * undici accepts either and this is on every request's path: the AbortSignal (for the serving directory,
 * `drain` waits and core's services) is made only if someone reads it.
 */
export class ClientAbort extends EventEmitter {
  aborted = false;
  reason: unknown;
  private controller: AbortController | undefined;

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.emit('abort');
    this.controller?.abort(reason);
  }
}

/** A class, not a literal with a getter: V8 builds accessor literals through the runtime (slow on a hot path). */
export class InferenceRequestContext implements RequestContext {
  constructor(
    readonly requestId: string,
    readonly principal: Principal,
    readonly abort: ClientAbort,
  ) {}

  get signal(): AbortSignal {
    return this.abort.signal;
  }
}

/** The context of one inference request: aborted with {@link clientGone} when the client closes the connection before the answer ended. */
export function inferenceContext(request: FastifyRequest, reply: FastifyReply, principal: Principal): InferenceRequestContext {
  const abort = new ClientAbort();
  const res = reply.raw;
  res.once('close', () => {
    if (!res.writableFinished) abort.abort(clientGone);
  });
  return new InferenceRequestContext(request.id, principal, abort);
}
