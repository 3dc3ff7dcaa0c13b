import {
  apiKeyManagerToken, createGateway, definePlugin, storageToken, systemContext, type Gateway, type GatewayPlugin, type Storage,
} from '@berth/core';
import { ManualClock, type AuthUnderTest, type IssuedCredential } from '@berth/core/testing';
import { apiKeyAuth } from './api-key-auth.js';

/** Test support (not exported from the package): the settings the contract suites run with. */
export const contractStaleBoundMs = 1000;

/**
 * Two started gateways with `apiKeyAuth` on one storage, driven by one manual clock. The cache TTL is
 * far longer than the stale bound, so the cross-instance tests measure the bound, not the TTL.
 * `storagePlugin(i)` gives instance i its storage plugin (sharing one store or one database schema).
 */
export async function twoApiKeyInstances(storagePlugin: (instance: number) => GatewayPlugin, cleanup: () => Promise<void> = async () => {}): Promise<AuthUnderTest> {
  const clock = new ManualClock();
  const instances: Gateway[] = [];
  try {
    for (const i of [0, 1]) {
      const gateway = createGateway({
        plugins: [storagePlugin(i), apiKeyAuth({ cacheTtlMs: 600_000, staleBoundMs: contractStaleBoundMs, changeFeedIntervalMs: 100 })],
        config: { pageTokenSecret: 'contract-page-token-secret', bootstrapApiKey: 'contract-bootstrap-key' },
        clock,
      });
      await gateway.start();
      instances.push(gateway);
    }
  } catch (error) {
    for (const gateway of instances.reverse()) await gateway.stop();
    await cleanup();
    throw error;
  }
  return {
    instances,
    clock,
    async cleanup() {
      for (const gateway of [...instances].reverse()) await gateway.stop();
      await cleanup();
    },
  };
}

/** Binds one store for every instance that uses the plugin. */
export function sharedStorage(storage: Storage): GatewayPlugin {
  return definePlugin({ id: 'storage-shared', register: (binder) => binder.bindValue(storageToken, storage) });
}

/** How the authenticator contract issues and revokes an API key. */
export async function issueApiKey(via: Gateway, userName: string): Promise<IssuedCredential> {
  const ctx = systemContext('contract');
  const keys = via.resolve(apiKeyManagerToken);
  const created = await keys.create(ctx, userName, {});
  return { credential: created.key, revoke: () => keys.delete(ctx, userName, created.keyId) };
}
