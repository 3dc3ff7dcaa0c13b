import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';

/**
 * Takes the reply over from Fastify and sends a Server-Sent Events answer's headers at once (no caching,
 * no buffering by proxies). Answers the raw response to write the events to.
 */
export function startSse(reply: FastifyReply, requestId: string, status = 200): ServerResponse {
  reply.hijack();
  const res = reply.raw;
  res.writeHead(status, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'x-accel-buffering': 'no',
    'x-request-id': requestId,
  });
  res.flushHeaders();
  return res;
}
