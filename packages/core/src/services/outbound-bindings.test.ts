import { afterEach, describe, expect, it } from 'vitest';
import { memoryStorage } from '../testing/index.js';
import { createTestGateway, type TestGateway } from '../testing/test-gateway.js';
import { definePlugin } from '../kernel/plugin.js';
import { systemContext } from '../kernel/request-context.js';
import { egressHttpToken } from '../kernel/tokens.js';
import { isGatewayError } from '../errors/gateway-error.js';
import type { EgressHttp } from '../ports/egress-http.js';
import type { GuardedEgressHttp } from '../outbound/egress-client.js';
import { startLoopbackServer, type LoopbackServer } from '../outbound/loopback-server-fixture.js';

const ctx = systemContext('egress-test');
let server: LoopbackServer | undefined;
let test: TestGateway | undefined;

afterEach(async () => {
  await test?.stop();
  await server?.close();
  test = undefined;
  server = undefined;
});

async function reasonOf(promise: Promise<unknown>): Promise<string | undefined> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  return isGatewayError(error) ? error.reason : `not a GatewayError: ${String(error)}`;
}

describe('the egressHttpToken binding', () => {
  it('refuses loopback by default', async () => {
    server = await startLoopbackServer((_request, response) => response.end('ok'));
    test = await createTestGateway({ plugins: [memoryStorage()] });
    const egress = test.gateway.resolve(egressHttpToken);
    expect(await reasonOf(egress.request(ctx, server.origin))).toBe('EGRESS_ADDRESS_REFUSED');
    expect((egress as GuardedEgressHttp).policy).toEqual({ allowLoopback: false, allowPrivate: false });
  });

  it('follows allowLoopbackUrls and allowPrivateUrls, and is closed when the gateway stops', async () => {
    server = await startLoopbackServer((_request, response) => response.end('ok'));
    test = await createTestGateway({ plugins: [memoryStorage()], config: { allowLoopbackUrls: true, allowPrivateUrls: true } });
    const egress = test.gateway.resolve(egressHttpToken);
    expect((egress as GuardedEgressHttp).policy).toEqual({ allowLoopback: true, allowPrivate: true });
    expect((await egress.request(ctx, server.origin)).text()).toBe('ok');
    expect(await (await egress.createFetch(ctx)(server.origin)).text()).toBe('ok');
    await test.stop();
    test = undefined;
    expect(await reasonOf(egress.request(ctx, server.origin))).toBe('EGRESS_CLOSED');
  });

  it('may be overridden by a plugin, whose client the gateway closes on stop', async () => {
    let closed = 0;
    const custom: EgressHttp = {
      request: async () => {
        throw new Error('not used');
      },
      createFetch: () => async () => new Response('custom'),
      close: async () => {
        closed += 1;
      },
    };
    const plugin = definePlugin({ id: 'egress-custom', register: (binder) => binder.bindValue(egressHttpToken, custom, { override: true }) });
    test = await createTestGateway({ plugins: [memoryStorage(), plugin] });
    expect(test.gateway.resolve(egressHttpToken)).toBe(custom);
    await test.stop();
    test = undefined;
    expect(closed).toBe(1);
  });
});
