import type { Gateway } from '../kernel/gateway.js';
import { createGateway } from '../services/create-gateway.js';
import { definePlugin, type GatewayPlugin } from '../kernel/plugin.js';
import type { Principal, RequestContext, Role } from '../kernel/request-context.js';
import { authenticatorToken } from '../kernel/tokens.js';
import { coreServicesToken } from '../services/tokens.js';
import type { GatewayConfig } from '../kernel/config.js';
import type { Clock } from '../ports/clock.js';
import type { CoreServices } from '../services/core-services.js';

/**
 * A fake authenticator: each token maps to a principal. For tests of hosts and plugins that do not
 * care about API keys.
 */
export function staticTokenAuth(principals: Record<string, Principal>): GatewayPlugin {
  return definePlugin({
    id: 'auth-static',
    register(binder) {
      binder.bindValue(authenticatorToken, { authenticate: async (_ctx, credential) => principals[credential] });
    },
  });
}

/** A context acting as `role` in `accountId`. */
export function principalContext(accountId: string, role: Role = 'admin', userId: string = role): RequestContext {
  return {
    requestId: `test-${Math.random().toString(36).slice(2)}`,
    principal: { userName: `accounts/${accountId}/users/${userId}`, accountId, role, email: `${userId}@example.com` },
  };
}

/** A clock the test moves by hand. */
export class ManualClock implements Clock {
  constructor(private current = new Date('2026-01-01T00:00:00.000Z')) {}
  now(): Date {
    return new Date(this.current.getTime());
  }
  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
  }
}

export interface TestGateway {
  readonly gateway: Gateway;
  readonly services: CoreServices;
  stop(): Promise<void>;
}

/**
 * A started gateway for tests. Pass a storage plugin (e.g. `memoryStorage()`); an auth plugin is added
 * when none is given.
 */
export async function createTestGateway(options: {
  plugins: GatewayPlugin[];
  config?: Partial<GatewayConfig>;
  clock?: Clock;
}): Promise<TestGateway> {
  const hasAuth = options.plugins.some((p) => p.id.startsWith('auth'));
  const gateway = createGateway({
    plugins: hasAuth ? options.plugins : [...options.plugins, staticTokenAuth({})],
    config: { pageTokenSecret: 'test-page-token-secret', ...options.config },
    ...(options.clock ? { clock: options.clock } : {}),
  });
  await gateway.start();
  return { gateway, services: gateway.resolve(coreServicesToken), stop: () => gateway.stop() };
}
