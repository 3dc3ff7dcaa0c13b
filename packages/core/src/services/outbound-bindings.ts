import type { Binder } from '../kernel/plugin.js';
import { configToken, egressHttpToken, lifecycleHooksToken } from '../kernel/tokens.js';
import { createEgressHttp } from '../outbound/egress-client.js';

/**
 * Binds the guarded outbound HTTP client (`egressHttpToken`) from the gateway's settings, and the
 * `outbound` lifecycle hook that closes it when the gateway stops (a plugin that overrides the token gets
 * its client's `close` called the same way).
 */
export function registerOutbound(binder: Binder): void {
  binder.bind({
    token: egressHttpToken,
    deps: [configToken],
    factory: (config) => createEgressHttp({ allowLoopback: config.allowLoopbackUrls, allowPrivate: config.allowPrivateUrls }),
  });
  binder.contribute({
    token: lifecycleHooksToken,
    deps: [egressHttpToken],
    factory: (egress) => ({
      id: 'outbound',
      async stop() {
        await egress.close?.();
      },
    }),
  });
}
