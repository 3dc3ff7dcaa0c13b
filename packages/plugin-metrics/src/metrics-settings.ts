import type { MetricsOptions } from './metrics-plugin.js';

/**
 * Metrics options from the environment, for host apps: `BERTH_METRICS` (`true` by default; `false` turns
 * them off: answers undefined), `BERTH_METRICS_TOKEN` (the bearer token), `BERTH_METRICS_PORT` and
 * `BERTH_METRICS_HOST` (a port of their own), `BERTH_METRICS_PATH` (default `/metrics`).
 * @throws Error naming the variable when a value is malformed
 */
export function metricsOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): MetricsOptions | undefined {
  const enabled = (env.BERTH_METRICS ?? '').toLowerCase();
  if (enabled === 'false') return undefined;
  if (enabled !== '' && enabled !== 'true') throw new Error(`BERTH_METRICS "${env.BERTH_METRICS}" must be true or false`);
  const port = env.BERTH_METRICS_PORT ?? '';
  if (port !== '' && !/^[0-9]{1,5}$/.test(port)) throw new Error(`BERTH_METRICS_PORT "${port}" is not a port number`);
  return {
    ...(env.BERTH_METRICS_TOKEN ? { bearerToken: env.BERTH_METRICS_TOKEN } : {}),
    ...(port !== '' ? { port: Number(port) } : {}),
    ...(env.BERTH_METRICS_HOST ? { host: env.BERTH_METRICS_HOST } : {}),
    ...(env.BERTH_METRICS_PATH ? { path: env.BERTH_METRICS_PATH } : {}),
  };
}
