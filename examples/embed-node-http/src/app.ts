import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Gateway } from '@berth/core';
import { createBerthRequestHandler } from '@berth/plugin-transport-fastify';

export interface EmbeddedServer {
  /** Your node:http server (not listening yet), with Berth answering under /berth. */
  readonly server: Server;
  /** Stops Berth's handler (requests still arriving answer 503); stop the gateway after it. */
  close(): Promise<void>;
}

/** The app's own request listener: what your server did before Berth came along. */
function yourApp(req: IncomingMessage, res: ServerResponse): void {
  const send = (status: number, body: unknown): void => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  if (req.method === 'GET' && req.url === '/') send(200, { hello: 'from your node:http app', berth: '/berth/docs' });
  else if (req.method === 'GET' && req.url === '/healthz') send(200, { status: 'ok' });
  else if (req.method === 'POST' && req.url === '/echo') {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (text += chunk));
    req.on('end', () => send(200, { echoed: text }));
  } else send(404, { error: `no route for ${req.method} ${req.url}` });
}

/**
 * A plain node:http server with Berth mounted under `/berth`: its API at `/berth/v1/...`, inference at
 * `/berth/inference/v1/...` (streamed answers included), its reference at `/berth/docs`. Every other
 * request goes to your own listener, bodies unread.
 */
export async function createAppServer(gateway: Gateway): Promise<EmbeddedServer> {
  const berth = await createBerthRequestHandler({ gateway, prefix: '/berth' });
  const server = createServer((req, res) => berth(req, res, () => yourApp(req, res)));
  return { server, close: () => berth.close() };
}
