import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Code, GatewayError, invalidArgument, unavailable } from '@berth/core';
import { renderError, surfaceOf, type Surface } from './errors.js';

/**
 * Answers of the failures Fastify and Node handle before any route runs, in the gateway's format: a
 * malformed URL or an over-long path parameter (Fastify's `frameworkErrors`), and the client errors Node
 * raises while reading a request (header overflow, bad request line, request timeout; `clientError`).
 * Statuses come from the code table: these are INVALID_ARGUMENT (400), a timeout DEADLINE_EXCEEDED (504).
 */

/** Fastify's `frameworkErrors` option: FST_ERR_BAD_URL, FST_ERR_MAX_PARAM_LENGTH, FST_ERR_ASYNC_CONSTRAINT. */
export function frameworkErrorHandler(prefix: string) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    const failure =
      error.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? invalidArgument('a path segment is too long', { reason: 'PATH_SEGMENT_TOO_LONG' })
        : error.code === 'FST_ERR_BAD_URL'
          ? invalidArgument('the URL is not valid: a path segment is not properly percent-encoded', { reason: 'BAD_URL' })
          : invalidArgument('the request could not be routed', { reason: 'BAD_REQUEST' });
    const url = request.raw.url ?? '/';
    const { status, body } = renderError(failure, surfaceOf(url.startsWith(prefix) ? url.slice(prefix.length) : url));
    void reply.code(status).header('x-request-id', request.id).send(body);
  };
}

interface ClientError extends Error {
  code?: string;
  /** What Node had read of the request (a Buffer at run time). */
  rawPacket?: unknown;
}

/** The surface of the request line in what Node had read, when it got that far. */
function surfaceOfPacket(packet: unknown, prefix: string): Surface {
  if (!Buffer.isBuffer(packet)) return 'control';
  const line = packet.subarray(0, Math.min(packet.length, 2048)).toString('latin1');
  const target = /^[A-Z]+ (\S+)/.exec(line)?.[1];
  if (!target) return 'control';
  return surfaceOf(target.startsWith(prefix) ? target.slice(prefix.length) : target);
}

function clientFailure(error: ClientError): GatewayError {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new GatewayError(Code.DEADLINE_EXCEEDED, 'the request was not received in time', { reason: 'REQUEST_TIMEOUT' });
    case 'HPE_HEADER_OVERFLOW':
      return invalidArgument('the request headers are too large', { reason: 'HEADERS_TOO_LARGE' });
    case 'HPE_URI_TOO_LONG':
      return invalidArgument('the request URL is too long', { reason: 'URL_TOO_LONG' });
    default:
      return invalidArgument('the request is not valid HTTP', { reason: 'BAD_REQUEST' });
  }
}

/** Fastify's `clientErrorHandler` option: writes the gateway's error answer on the raw socket and closes it. */
export function clientErrorHandler(prefix: string) {
  return (error: ClientError, socket: Socket): void => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    // A response already under way (answered before its body arrived) cannot get a second one.
    const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (socket.writable && !inFlight?.headersSent) {
      const { status, body } = renderError(clientFailure(error), surfaceOfPacket(error.rawPacket, prefix));
      const text = JSON.stringify(body);
      socket.write(
        `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\ncontent-type: application/json; charset=utf-8\r\n` +
          `content-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`,
      );
    }
    socket.destroy(error);
  };
}

/**
 * Replaces Fastify's own 503 body while the server closes (`return503OnClosing`, which must be off):
 * from the start of `close()`, requests that still arrive (pipelined, or on a busy keep-alive
 * connection) answer UNAVAILABLE in their surface's format, before any authentication or handler runs.
 * Fastify adds `Connection: close` to them.
 */
export function answerUnavailableWhileClosing(app: FastifyInstance, prefix: string): void {
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    // Node closes the connections idle when close() starts; a keep-alive connection whose answer (a
    // stream) ends later would hold close() until its keep-alive timeout. Drained ones are closed as they go idle.
    const sweep = setInterval(() => app.server.closeIdleConnections(), 50);
    app.server.once('close', () => clearInterval(sweep));
    done();
  });
  app.addHook('onRequest', (request, reply, done) => {
    if (!closing) return done();
    const url = request.raw.url ?? '/';
    const failure = unavailable('the server is shutting down; retry the request');
    const { status, body } = renderError(failure, surfaceOf(url.startsWith(prefix) ? url.slice(prefix.length) : url));
    void reply.code(status).header('x-request-id', request.id).send(body);
  });
}
