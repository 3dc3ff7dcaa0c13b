import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { silentLogger, type GatewayLogger } from '@berth/core';
import { jsonLogger } from '@berth/plugin-transport-fastify';

/**
 * The e2e suite's log capture (issue 16, logs): every gateway the harness starts logs at debug level, as
 * the templates' pino JSON lines, into a file of this worker process under `BERTH_E2E_LOG_DIR` (set by
 * log-scan.global-setup.ts), and the helpers write down every secret they create or send. After the
 * suite, the global setup's teardown fails the run if any of those secrets appears in any log line.
 */
const dir = process.env.BERTH_E2E_LOG_DIR;
let logger: GatewayLogger | undefined;

/** The logger of e2e gateways (silent when the suite runs without the global setup). */
export function e2eLogger(): GatewayLogger {
  if (dir === undefined) return silentLogger;
  logger ??= jsonLogger({ level: 'debug', destination: join(dir, `gateway-${process.pid}.log`) });
  return logger;
}

/** Writes `secret` down for the scan after the suite. */
export function rememberSecret(secret: string): void {
  if (dir !== undefined && secret.length >= 8) appendFileSync(join(dir, `secrets-${process.pid}.txt`), `${secret}\n`);
}

const secretFields = new Set(['apiKey', 'secret', 'signingSecret', 'webhookSecret', 'bearerToken', 'password', 'bootstrapApiKey']);

/** Remembers every string under a credential's field name in `value` (and `key` where `keyIsSecret`: API key creation answers). */
export function rememberSecretsIn(value: unknown, keyIsSecret = false): void {
  if (dir === undefined || value === null || typeof value !== 'object') return;
  for (const [field, child] of Object.entries(value)) {
    if (typeof child === 'string' && (secretFields.has(field) || (keyIsSecret && field === 'key'))) rememberSecret(child);
    else rememberSecretsIn(child, keyIsSecret);
  }
}
