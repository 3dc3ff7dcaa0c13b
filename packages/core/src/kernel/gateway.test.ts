import { afterEach, describe, expect, it } from 'vitest';
import { memoryStorage } from '../testing/index.js';
import { staticTokenAuth, principalContext } from '../testing/test-gateway.js';
import { AssemblyError } from './container.js';
// after ./container.js, which loads the reflect polyfill tsyringe needs
import { container as rootContainer } from 'tsyringe';
import type { Gateway } from './gateway.js';
import { createGateway } from '../services/create-gateway.js';
import { definePlugin, type GatewayPlugin } from './plugin.js';
import { systemContext, roles } from './request-context.js';
import { createMultiToken, createToken, optional } from './token.js';
import { authenticatorToken, storageToken } from './tokens.js';
import { coreServicesToken, deploymentServiceToken, modelServiceToken } from '../services/tokens.js';

const greetingToken = createToken<string>('Greeting');

function valuePlugin(id: string, value: string, options: { override?: boolean; dependsOn?: string[] } = {}): GatewayPlugin {
  return definePlugin({
    id,
    ...(options.dependsOn ? { dependsOn: options.dependsOn } : {}),
    register(binder) {
      binder.bindValue(greetingToken, value, options.override ? { override: true } : undefined);
    },
  });
}

function recorder(id: string, log: string[], failStart = false): GatewayPlugin {
  return definePlugin({
    id,
    register() {},
    start() {
      log.push(`start ${id}`);
      if (failStart) throw new Error(`${id} cannot start`);
    },
    stop() {
      log.push(`stop ${id}`);
    },
  });
}

const base = (): GatewayPlugin[] => [memoryStorage(), staticTokenAuth({})];

const running: Gateway[] = [];
function track(gateway: Gateway): Gateway {
  running.push(gateway);
  return gateway;
}

afterEach(async () => {
  for (const gateway of running.splice(0)) await gateway.stop();
});

function assemblyMessage(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(AssemblyError);
    return (error as Error).message;
  }
  throw new Error('expected an AssemblyError');
}

describe('createGateway assembly', () => {
  it('rejects a duplicate plugin id', () => {
    const message = assemblyMessage(() => createGateway({ plugins: [...base(), recorder('dup', []), recorder('dup', [])] }));
    expect(message).toContain('"dup"');
    expect(message).toMatch(/registered twice/);
  });

  it('rejects a token bound twice without override, naming both plugins', () => {
    const message = assemblyMessage(() =>
      createGateway({ plugins: [...base(), valuePlugin('first-greeter', 'hello'), valuePlugin('second-greeter', 'hi')] }),
    );
    expect(message).toContain('first-greeter');
    expect(message).toContain('second-greeter');
    expect(message).toContain('Greeting');
    expect(message).toContain('override');
  });

  it('lets a later plugin override a binding when it asks to', async () => {
    const gateway = track(
      createGateway({ plugins: [...base(), valuePlugin('first-greeter', 'hello'), valuePlugin('second-greeter', 'hi', { override: true })] }),
    );
    expect(gateway.resolve(greetingToken)).toBe('hi');
    await gateway.start();
    expect(gateway.resolve(greetingToken)).toBe('hi');
  });

  it('lets a plugin override a port bound by another plugin (storage)', () => {
    const replacement = memoryStorage();
    const overriding = definePlugin({
      id: 'storage-override',
      register(binder) {
        binder.bind({ token: storageToken, deps: [], factory: () => 'replacement' as never, override: true });
      },
    });
    const gateway = createGateway({ plugins: [replacement, staticTokenAuth({}), overriding] });
    expect(gateway.resolve(storageToken)).toBe('replacement');
  });

  it('fails without storage, naming what to add', () => {
    const message = assemblyMessage(() => createGateway({ plugins: [staticTokenAuth({})] }));
    expect(message).toContain('Storage');
    expect(message).toContain('memoryStorage()');
  });

  it('fails without auth, naming what to add', () => {
    const message = assemblyMessage(() => createGateway({ plugins: [memoryStorage()] }));
    expect(message).toContain('Authenticator');
    expect(message).toContain('apiKeyAuth()');
  });

  it('rejects an unknown dependsOn, naming the plugin and the dependency', () => {
    const message = assemblyMessage(() =>
      createGateway({ plugins: [...base(), valuePlugin('greeter', 'hello', { dependsOn: ['does-not-exist'] })] }),
    );
    expect(message).toContain('"greeter"');
    expect(message).toContain('"does-not-exist"');
  });

  it('accepts a dependency registered before the dependent', () => {
    expect(() => createGateway({ plugins: [...base(), recorder('dep', []), valuePlugin('greeter', 'hello', { dependsOn: ['dep'] })] })).not.toThrow();
  });

  it('rejects a dependency registered after the dependent', () => {
    const message = assemblyMessage(() =>
      createGateway({ plugins: [...base(), valuePlugin('greeter', 'hello', { dependsOn: ['dep'] }), recorder('dep', [])] }),
    );
    expect(message).toContain('"dep"');
  });

  it('rejects a plugin of another plugin API version', () => {
    const alien: GatewayPlugin = { id: 'alien', apiVersion: 99, register() {} };
    expect(assemblyMessage(() => createGateway({ plugins: [...base(), alien] }))).toContain('"alien"');
  });

  it('wraps a failing register naming the plugin', () => {
    const broken = definePlugin({
      id: 'broken',
      register() {
        throw new Error('boom');
      },
    });
    const message = assemblyMessage(() => createGateway({ plugins: [...base(), broken] }));
    expect(message).toContain('"broken"');
    expect(message).toContain('boom');
  });

  it('names the missing token when resolving something unbound', () => {
    const gateway = createGateway({ plugins: base() });
    expect(() => gateway.resolve(greetingToken)).toThrow(/Greeting/);
    expect(gateway.isBound(greetingToken)).toBe(false);
    expect(gateway.isBound(authenticatorToken)).toBe(true);
  });
});

describe('dependency graph', () => {
  const numberToken = createToken<number>('Answer', { providedBy: 'the answer plugin' });
  const pingToken = createToken<string>('Ping');
  const pongToken = createToken<string>('Pong');
  const wordsToken = createMultiToken<string>('Words');

  it('fails on a binding whose dependency nobody binds, naming the binding, its plugin and what provides the dependency', () => {
    const needy = definePlugin({
      id: 'needy',
      register(binder) {
        binder.bind({ token: greetingToken, deps: [numberToken], factory: (n) => `answer ${n}` });
      },
    });
    const message = assemblyMessage(() => createGateway({ plugins: [...base(), needy] }));
    expect(message).toContain('Greeting (bound by plugin "needy") needs Answer');
    expect(message).toContain('the answer plugin');
  });

  it('fails on a cycle, naming every binding on it and its plugin', () => {
    const cyclic = definePlugin({
      id: 'cyclic',
      register(binder) {
        binder.bind({ token: pingToken, deps: [pongToken], factory: (pong) => `ping ${pong}` });
        binder.bind({ token: pongToken, deps: [pingToken], factory: (ping) => `pong ${ping}` });
      },
    });
    const message = assemblyMessage(() => createGateway({ plugins: [...base(), cyclic] }));
    expect(message).toMatch(/dependency cycle: Ping \(bound by plugin "cyclic"\) → Pong \(bound by plugin "cyclic"\) → Ping/);
  });

  it('fails on a cycle through a multi-binding contribution', () => {
    const cyclic = definePlugin({
      id: 'cyclic-multi',
      register(binder) {
        binder.bind({ token: greetingToken, deps: [wordsToken], factory: (words) => words.join(' ') });
        binder.contribute({ token: wordsToken, deps: [greetingToken], factory: (greeting) => greeting });
      },
    });
    expect(assemblyMessage(() => createGateway({ plugins: [...base(), cyclic] }))).toMatch(/dependency cycle: .*Words.*Greeting/);
  });

  it('fails when a core binding loses its dependency to an override cycle', () => {
    const loop = definePlugin({
      id: 'loop',
      register(binder) {
        binder.bind({ token: storageToken, deps: [coreServicesToken], factory: () => 'storage' as never, override: true });
      },
    });
    const message = assemblyMessage(() => createGateway({ plugins: [...base(), loop] }));
    expect(message).toContain('dependency cycle');
    expect(message).toContain('Storage (bound by plugin "loop")');
  });

  it('builds each binding once from its declared dependencies, in the order they are declared', () => {
    let built = 0;
    const plugin = definePlugin({
      id: 'builder',
      register(binder) {
        binder.bindValue(numberToken, 42);
        binder.bind({
          token: greetingToken,
          deps: [numberToken, wordsToken, optional(pingToken)],
          factory: (n, words, ping) => {
            built += 1;
            return `${n} ${words.join('+')} ${String(ping)}`;
          },
        });
        binder.contribute(wordsToken, 'a');
        binder.contribute({ token: wordsToken, deps: [numberToken], factory: (n) => `b${n}` });
      },
    });
    const gateway = createGateway({ plugins: [...base(), plugin] });
    expect(built).toBe(0);
    expect(gateway.resolve(greetingToken)).toBe('42 a+b42 undefined');
    expect(gateway.resolve(greetingToken)).toBe('42 a+b42 undefined');
    expect(built).toBe(1);
    expect(gateway.resolve(wordsToken)).toEqual(['a', 'b42']);
  });

  it('resolves an optional dependency that is bound, and an empty multi-binding as an empty list', () => {
    const plugin = definePlugin({
      id: 'optional-user',
      register(binder) {
        binder.bindValue(pingToken, 'ping');
        binder.bind({ token: greetingToken, deps: [optional(pingToken), wordsToken], factory: (ping, words) => `${String(ping)} ${words.length}` });
      },
    });
    expect(createGateway({ plugins: [...base(), plugin] }).resolve(greetingToken)).toBe('ping 0');
  });

  it('builds an overriding binding from its own dependencies, never the replaced one', () => {
    let replacedBuilt = false;
    const first = definePlugin({
      id: 'first',
      register(binder) {
        binder.bind({ token: greetingToken, deps: [numberToken], factory: () => ((replacedBuilt = true), 'first') });
      },
    });
    const second = definePlugin({
      id: 'second',
      register(binder) {
        binder.bind({ token: greetingToken, deps: [], factory: () => 'second', override: true });
      },
    });
    // The replaced binding's missing dependency no longer matters.
    const gateway = createGateway({ plugins: [...base(), first, second] });
    expect(gateway.resolve(greetingToken)).toBe('second');
    expect(replacedBuilt).toBe(false);
  });

  it('refuses to bind a multi-binding token or to contribute to a single one', () => {
    const binds = definePlugin({ id: 'binds-multi', register: (binder) => binder.bindValue(wordsToken as never, [] as never) });
    expect(assemblyMessage(() => createGateway({ plugins: [...base(), binds] }))).toContain('multi-binding');
    const contributes = definePlugin({ id: 'contributes-single', register: (binder) => binder.contribute(greetingToken as never, 'x') });
    expect(assemblyMessage(() => createGateway({ plugins: [...base(), contributes] }))).toContain('not a multi-binding');
  });

  it('binds one token per core service, the facade assembled from them', () => {
    const gateway = createGateway({ plugins: base() });
    const services = gateway.resolve(coreServicesToken);
    expect(services.models).toBe(gateway.resolve(modelServiceToken));
    expect(services.deployments).toBe(gateway.resolve(deploymentServiceToken));
    expect(Object.isFrozen(services)).toBe(true);
  });
});

describe('gateway lifecycle', () => {
  it('starts plugins in registration order and stops them in reverse', async () => {
    const log: string[] = [];
    const gateway = createGateway({ plugins: [...base(), recorder('one', log), recorder('two', log), recorder('three', log)] });
    expect(gateway.state).toBe('assembled');
    await gateway.start();
    expect(gateway.state).toBe('running');
    expect(log).toEqual(['start one', 'start two', 'start three']);
    await gateway.stop();
    expect(gateway.state).toBe('stopped');
    expect(log).toEqual(['start one', 'start two', 'start three', 'stop three', 'stop two', 'stop one']);
  });

  it('stops the already-started plugins when one fails to start, and rethrows', async () => {
    const log: string[] = [];
    const gateway = createGateway({ plugins: [...base(), recorder('one', log), recorder('two', log), recorder('bad', log, true), recorder('four', log)] });
    await expect(gateway.start()).rejects.toThrow('bad cannot start');
    expect(log).toEqual(['start one', 'start two', 'start bad', 'stop two', 'stop one']);
    expect(gateway.state).toBe('stopped');
  });

  it('stops every unit even when one stop fails, then rethrows the first error', async () => {
    const log: string[] = [];
    const failingStop = definePlugin({
      id: 'failing-stop',
      register() {},
      stop() {
        log.push('stop failing-stop');
        throw new Error('stop failed');
      },
    });
    const gateway = createGateway({ plugins: [...base(), recorder('one', log), failingStop, recorder('three', log)] });
    await gateway.start();
    await expect(gateway.stop()).rejects.toThrow('stop failed');
    expect(log).toEqual(['start one', 'start three', 'stop three', 'stop failing-stop', 'stop one']);
  });

  it('refuses to start twice and stops idempotently', async () => {
    const gateway = createGateway({ plugins: base() });
    await gateway.start();
    await expect(gateway.start()).rejects.toThrow(/cannot start/);
    await gateway.stop();
    await expect(gateway.stop()).resolves.toBeUndefined();
  });

  it('aborts the lifecycle signal on stop', async () => {
    let signal: AbortSignal | undefined;
    const watcher = definePlugin({
      id: 'watcher',
      register() {},
      start(ctx) {
        signal = ctx.signal;
      },
    });
    const gateway = createGateway({ plugins: [...base(), watcher] });
    await gateway.start();
    expect(signal?.aborted).toBe(false);
    await gateway.stop();
    expect(signal?.aborted).toBe(true);
  });
});

describe('two gateways in one process', () => {
  it('do not share bindings, singletons or storage', async () => {
    const a = track(createGateway({ plugins: [...base(), valuePlugin('greeter', 'from a')] }));
    const b = track(createGateway({ plugins: [...base(), valuePlugin('greeter', 'from b')] }));
    expect(a.resolve(greetingToken)).toBe('from a');
    expect(b.resolve(greetingToken)).toBe('from b');
    expect(a.resolve(storageToken)).not.toBe(b.resolve(storageToken));
    expect(a.resolve(coreServicesToken)).not.toBe(b.resolve(coreServicesToken));
    // singletons within one gateway
    expect(a.resolve(coreServicesToken)).toBe(a.resolve(coreServicesToken));
    // nothing leaks into tsyringe's global container
    expect(rootContainer.isRegistered(greetingToken.key)).toBe(false);
    expect(rootContainer.isRegistered(storageToken.key)).toBe(false);

    await a.start();
    await b.start();
    const ctx = principalContext('my-account', 'admin');
    await a.resolve(coreServicesToken).models.create(ctx, 'my-account', { kind: 'HUB_BASE_MODEL', baseModelDetails: {} }, 'only-in-a');
    await expect(b.resolve(coreServicesToken).models.get(ctx, 'accounts/my-account/models/only-in-a')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('a binding in one gateway is unbound in another', () => {
    const a = createGateway({ plugins: [...base(), valuePlugin('greeter', 'from a')] });
    const b = createGateway({ plugins: base() });
    expect(a.isBound(greetingToken)).toBe(true);
    expect(b.isBound(greetingToken)).toBe(false);
    expect(() => b.resolve(greetingToken)).toThrow(AssemblyError);
  });
});

describe('RequestContext', () => {
  it('systemContext has no principal and a fresh request id each time', () => {
    const first = systemContext('reconcile');
    const second = systemContext('reconcile');
    expect(first.principal).toBeUndefined();
    expect(first.requestId).toMatch(/^reconcile-\d+$/);
    expect(first.requestId).not.toBe(second.requestId);
    expect(first.signal).toBeUndefined();
  });

  it('systemContext carries the given abort signal', () => {
    const controller = new AbortController();
    expect(systemContext('worker', controller.signal).signal).toBe(controller.signal);
  });

  it('principalContext names the user in its account with the role', () => {
    const ctx = principalContext('acme', 'contributor');
    expect(ctx.principal).toEqual({ userName: 'accounts/acme/users/contributor', accountId: 'acme', role: 'contributor', email: 'contributor@example.com' });
    expect(ctx.requestId).not.toBe(principalContext('acme', 'contributor').requestId);
  });

  it('knows the four roles', () => {
    expect([...roles]).toEqual(['admin', 'user', 'contributor', 'inference-user']);
  });
});

describe('definePlugin', () => {
  it('rejects ids that are not lowercase letters, digits and hyphens', () => {
    expect(() => definePlugin({ id: 'Bad_Id', register() {} })).toThrow(/lowercase/);
    expect(definePlugin({ id: 'good-id', register() {} }).apiVersion).toBe(1);
  });
});
