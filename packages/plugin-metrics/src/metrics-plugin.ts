import { createServer, type Server } from 'node:http';
import {
  acceleratorRuntimesToken, definePlugin, loggerToken, matchesBearerToken, metricsEndpointToken, observersToken, storageToken, systemContext,
  type AcceleratorRuntime, type GatewayLogger, type GatewayPlugin, type MetricsEndpoint, type Storage,
} from '@berth/core';
import { GatewayMetrics, type GaugeReadings } from './gateway-metrics.js';

export interface MetricsOptions {
  /** Path of the metrics on the gateway's HTTP server (ignored with `port`). Default `/metrics`. */
  readonly path?: string;
  /**
   * Required as `Authorization: Bearer <token>` to read the metrics (API keys do not open them). Without
   * it the metrics are open to whoever reaches the path: give one, or a `port` only the scraper reaches.
   */
  readonly bearerToken?: string;
  /** Serve the metrics on a port of their own (e.g. 9464, at `/metrics`) instead of the gateway's server; 0 picks a free port. */
  readonly port?: number;
  /** Host of that port. Default `127.0.0.1`. */
  readonly host?: string;
  /** Node.js process metrics (prom-client's defaults, prefixed `berth_`). Default true. */
  readonly processMetrics?: boolean;
}

/** A running metrics plugin's own port, when it has one. */
export interface MetricsServerAddress {
  readonly url: string;
}

/** The plugin, with the URL of the metrics' own port once started (undefined without `port`). */
export interface MetricsPlugin extends GatewayPlugin {
  readonly address: MetricsServerAddress | undefined;
}

async function readGauges(storage: Storage, runtimes: readonly AcceleratorRuntime[], logger: GatewayLogger): Promise<GaugeReadings> {
  const ctx = systemContext('metrics');
  const replicas = new Map<string, { deployment: string; phase: string; count: number }>();
  for (const runtime of runtimes) {
    for (const handle of await runtime.provisioner.listReplicas(ctx)) {
      const { deployment, phase } = handle.status();
      const key = `${deployment} ${phase}`;
      const entry = replicas.get(key) ?? { deployment, phase, count: 0 };
      entry.count += 1;
      replicas.set(key, entry);
    }
  }
  if (storage.stats === undefined) return { replicas: [...replicas.values()] };
  try {
    return { replicas: [...replicas.values()], storage: await storage.stats(ctx), storageUp: 1 };
  } catch (error) {
    logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'metrics: reading storage stats failed');
    return { replicas: [...replicas.values()], storageUp: 0 };
  }
}

/**
 * Prometheus metrics (prom-client): contributes an observer of the gateway's telemetry events and binds
 * the {@link MetricsEndpoint} the Fastify transport serves at `path` (or serves them on `port`). Replica,
 * queue and storage-pool gauges are read at each scrape. See docs/operations.md for every metric.
 * @throws Error at once when an option is out of range
 */
export function metrics(options: MetricsOptions = {}): MetricsPlugin {
  const path = options.path ?? '/metrics';
  if (!path.startsWith('/')) throw new Error('metrics: path must start with "/"');
  if (options.port !== undefined && !(Number.isInteger(options.port) && options.port >= 0 && options.port < 65536)) {
    throw new Error('metrics: port must be an integer from 0 to 65535');
  }
  if (options.bearerToken !== undefined && options.bearerToken.length < 16) throw new Error('metrics: bearerToken must be at least 16 characters');
  const gatewayMetrics = new GatewayMetrics({ processMetrics: options.processMetrics ?? true });
  let server: Server | undefined;
  let address: MetricsServerAddress | undefined;
  const plugin = definePlugin({
    id: 'metrics',
    register(binder) {
      binder.contribute(observersToken, gatewayMetrics);
      binder.bind({
        token: metricsEndpointToken,
        deps: [storageToken, acceleratorRuntimesToken, loggerToken],
        factory: (storage, runtimes, logger): MetricsEndpoint => ({
            ...(options.port === undefined ? { path } : {}),
            ...(options.bearerToken !== undefined ? { bearerToken: options.bearerToken } : {}),
            render: async () => {
              gatewayMetrics.setGauges(await readGauges(storage, runtimes, logger));
              return { contentType: gatewayMetrics.registry.contentType, body: await gatewayMetrics.registry.metrics() };
            },
        }),
      });
    },
    async start({ resolver }) {
      if (options.port === undefined) return;
      const served = resolver.resolve(metricsEndpointToken);
      server = createServer((request, response) => {
        if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
          response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
          return;
        }
        if (served.bearerToken !== undefined && !matchesBearerToken(request.headers.authorization, served.bearerToken)) {
          response.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer' }).end('unauthorized\n');
          return;
        }
        served.render().then(
          ({ contentType, body }) => response.writeHead(200, { 'content-type': contentType }).end(body),
          () => response.writeHead(500, { 'content-type': 'text/plain' }).end('metrics failed\n'),
        );
      });
      const host = options.host ?? '127.0.0.1';
      await new Promise<void>((resolve, reject) => {
        server!.once('error', reject);
        server!.listen(options.port, host, () => resolve());
      });
      const bound = server.address();
      const port = typeof bound === 'object' && bound !== null ? bound.port : options.port;
      address = { url: `http://${host.includes(':') ? `[${host}]` : host}:${port}/metrics` };
    },
    async stop() {
      const running = server;
      server = undefined;
      address = undefined;
      if (running) await new Promise<void>((resolve) => running.close(() => resolve()));
    },
  });
  return {
    ...plugin,
    get address(): MetricsServerAddress | undefined {
      return address;
    },
  };
}
