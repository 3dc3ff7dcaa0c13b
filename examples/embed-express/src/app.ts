import express, { type Express } from 'express';
import type { Gateway } from '@berth/core';
import { createBerthRequestHandler } from '@berth/plugin-transport-fastify';

export interface EmbeddedApp {
  /** Your Express app, with Berth answering under /berth. */
  readonly app: Express;
  /** Stops Berth's handler (requests still arriving answer 503); stop the gateway after it. */
  close(): Promise<void>;
}

/**
 * An existing Express app with Berth mounted under `/berth`: its API at `/berth/v1/...`, inference at
 * `/berth/inference/v1/...` (streamed answers included), its reference at `/berth/docs`. The app's own
 * routes, body parser and error handler stay its own.
 */
export async function createApp(gateway: Gateway): Promise<EmbeddedApp> {
  const berth = await createBerthRequestHandler({ gateway, prefix: '/berth' });
  const app = express();
  // Before any body parser: Berth reads (and bounds) its own request bodies; other paths go on to the app.
  app.use(berth);
  app.use(express.json());
  app.get('/', (_req, res) => {
    res.json({ hello: 'from your Express app', berth: '/berth/docs' });
  });
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.post('/echo', (req, res) => {
    res.json({ echoed: req.body as unknown });
  });
  return { app, close: () => berth.close() };
}
