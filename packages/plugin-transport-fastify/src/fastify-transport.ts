import type { Gateway } from '@berth/core';
import { createHttpServer, type HttpServerOptions } from './http-server.js';

export interface ServeOptions extends Omit<HttpServerOptions, 'gateway'> {
  readonly host?: string;
  readonly port?: number;
}

export interface RunningServer {
  /** Base URL, e.g. `http://127.0.0.1:8080`. */
  readonly url: string;
  close(): Promise<void>;
}

/** Starts an HTTP server for a started gateway. */
export async function serveGateway(gateway: Gateway, options: ServeOptions = {}): Promise<RunningServer> {
  const app = createHttpServer({ gateway, ...options });
  const address = await app.listen({ host: options.host ?? '127.0.0.1', port: options.port ?? 0 });
  return {
    url: address.replace('[::1]', 'localhost'),
    close: () => app.close(),
  };
}
