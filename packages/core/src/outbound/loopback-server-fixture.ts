import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';
import { isGatewayError, type GatewayError } from '../errors/gateway-error.js';
import type { EgressResolver, ResolvedAddress } from './checking-lookup.js';

/** A request a loopback server received. */
export interface SeenRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export interface LoopbackServer {
  readonly port: number;
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  readonly requests: SeenRequest[];
  /** Connections accepted so far. */
  readonly connections: () => number;
  close(): Promise<void>;
}

export type LoopbackHandler = (request: IncomingMessage, response: ServerResponse, body: string) => void;

/** A real HTTP server on 127.0.0.1 (a free port); the handler runs once the request body is read. */
export async function startLoopbackServer(handler: LoopbackHandler): Promise<LoopbackServer> {
  const requests: SeenRequest[] = [];
  let connections = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body });
      handler(request, response, body);
    });
  });
  server.on('connection', () => (connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    requests,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port nothing listens on (it was free a moment ago). */
export async function closedPort(): Promise<number> {
  const server = await startLoopbackServer(() => undefined);
  await server.close();
  return server.port;
}

/**
 * A resolver from a table (names missing from it fail as ENOTFOUND), recording each name it is asked for.
 * Values may be functions, answered anew on each call (to change an answer between connections).
 */
export function tableResolver(table: Record<string, readonly ResolvedAddress[] | (() => readonly ResolvedAddress[])>): EgressResolver & { asked: string[] } {
  const asked: string[] = [];
  const resolver = async (hostname: string) => {
    asked.push(hostname);
    const entry = table[hostname];
    if (entry === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return typeof entry === 'function' ? entry() : entry;
  };
  return Object.assign(resolver, { asked });
}

export const loopbackV4: readonly ResolvedAddress[] = [{ address: '127.0.0.1', family: 4 }];

/**
 * For a test file: `serve` starts a loopback server and `keep` remembers a client; both are closed after
 * each test.
 */
export function useLoopbackServers(): { serve(handler: LoopbackHandler): Promise<LoopbackServer>; keep<T extends { close(graceMs?: number): Promise<void> }>(client: T): T } {
  const servers: LoopbackServer[] = [];
  const clients: Array<{ close(graceMs?: number): Promise<void> }> = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close(0)));
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });
  return {
    async serve(handler) {
      const server = await startLoopbackServer(handler);
      servers.push(server);
      return server;
    },
    keep(client) {
      clients.push(client);
      return client;
    },
  };
}

/** What `promise` rejects with, which must be a GatewayError. */
export async function gatewayFailure(promise: Promise<unknown>): Promise<GatewayError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  if (!isGatewayError(error)) throw new Error(`expected a GatewayError, got ${String(error)}`);
  return error;
}
