import { consoleLogger, createGateway, type Gateway } from '@berth/core';
import { apiKeyAuth } from '@berth/plugin-auth-api-keys';
import { gpuxRuntime } from '@berth/plugin-runtime-gpux';
import { memoryStorage } from '@berth/plugin-storage-memory';

/**
 * A gateway with no transport at all: memory storage, API keys (the kernel needs an authenticator; no
 * key is ever presented in process), and the GPUX runtime on its simulated provisioner, whose replicas
 * are reference-engine servers on loopback ports.
 */
export function buildGateway(accountId = 'my-account', logLevel: 'debug' | 'info' | 'warn' | 'error' = 'warn'): Gateway {
  return createGateway({
    plugins: [memoryStorage(), apiKeyAuth(), gpuxRuntime()],
    config: { bootstrapAccountId: accountId },
    logger: consoleLogger(logLevel),
  });
}
