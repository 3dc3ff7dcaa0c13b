import { AssemblyError, GatewayContainer, type Resolver } from './container.js';
import { defaultGatewayConfig, type GatewayConfig } from './config.js';
import type { Binder, GatewayPlugin, LifecycleContext } from './plugin.js';
import { PLUGIN_API_VERSION } from './plugin.js';
import type { Token } from './token.js';
import { authenticatorToken, clockToken, configToken, idGeneratorToken, loggerToken, storageToken } from './tokens.js';
import { systemClock, type Clock } from '../ports/clock.js';
import { randomIdGenerator, type IdGenerator } from '../ports/id-generator.js';
import { silentLogger, type GatewayLogger } from '../ports/logger.js';

export interface CreateGatewayOptions {
  readonly plugins: readonly GatewayPlugin[];
  readonly config?: Partial<GatewayConfig>;
  readonly logger?: GatewayLogger;
  readonly clock?: Clock;
  readonly ids?: IdGenerator;
}

/** Tokens that must be bound before a gateway can start, and what provides them. */
const requiredPorts: ReadonlyArray<{ token: Token<unknown>; hint: string }> = [
  { token: storageToken, hint: 'a storage plugin such as memoryStorage() or postgresStorage()' },
  { token: authenticatorToken, hint: 'an auth plugin such as apiKeyAuth()' },
];

/** Start/stop hooks that core itself contributes (bootstrap, workers). They run after all plugins start. */
export interface LifecycleHook {
  readonly id: string;
  start?(ctx: LifecycleContext): Promise<void> | void;
  stop?(ctx: LifecycleContext): Promise<void> | void;
}

export type GatewayState = 'assembled' | 'starting' | 'running' | 'stopping' | 'stopped';

/**
 * One assembled gateway: its own child container, its plugins started in order and stopped in reverse.
 * A host may run several in one process; they share nothing.
 */
export class Gateway implements Resolver {
  private stateValue: GatewayState = 'assembled';
  private readonly abort = new AbortController();
  private started: Array<GatewayPlugin | LifecycleHook> = [];

  constructor(
    private readonly container: GatewayContainer,
    readonly plugins: readonly GatewayPlugin[],
    private readonly hooks: readonly LifecycleHook[],
    readonly logger: GatewayLogger,
  ) {}

  get state(): GatewayState {
    return this.stateValue;
  }

  resolve<T>(token: Token<T>): T {
    return this.container.resolve(token);
  }

  resolveAll<T>(token: Token<readonly T[]>): readonly T[] {
    return this.container.resolveAll(token);
  }

  isBound(token: Token<unknown>): boolean {
    return this.container.isBound(token);
  }

  private lifecycleContext(): LifecycleContext {
    return { resolver: this, logger: this.logger, signal: this.abort.signal };
  }

  /** Starts plugins in registration order, then core's hooks. On failure, stops what started and rethrows. */
  async start(): Promise<void> {
    if (this.stateValue !== 'assembled') throw new Error(`gateway cannot start from state ${this.stateValue}`);
    this.stateValue = 'starting';
    const ctx = this.lifecycleContext();
    try {
      for (const unit of [...this.plugins, ...this.hooks]) {
        await unit.start?.(ctx);
        this.started.push(unit);
      }
      this.stateValue = 'running';
    } catch (error) {
      await this.stop();
      throw error;
    }
  }

  /** Stops in reverse order; every unit is stopped even if one fails (the first error is rethrown). */
  async stop(): Promise<void> {
    if (this.stateValue === 'stopped' || this.stateValue === 'stopping') return;
    this.stateValue = 'stopping';
    this.abort.abort();
    const ctx = this.lifecycleContext();
    let firstError: unknown;
    for (const unit of [...this.started].reverse()) {
      try {
        await unit.stop?.(ctx);
      } catch (error) {
        firstError ??= error;
        this.logger.error({ err: String(error), unit: unit.id }, 'stop failed');
      }
    }
    this.started = [];
    this.container.dispose();
    this.stateValue = 'stopped';
    if (firstError !== undefined) throw firstError;
  }
}

/** Registers core's own bindings and lifecycle hooks. Implemented in core-bindings.ts. */
export type CoreRegistrar = (binder: Binder, hooks: LifecycleHook[]) => void;

let coreRegistrar: CoreRegistrar | undefined;

/** Called once by core's entry module; keeps the kernel free of resource imports. */
export function setCoreRegistrar(registrar: CoreRegistrar): void {
  coreRegistrar = registrar;
}

/**
 * Assembles a gateway. Fails fast, naming the plugin, on a duplicate plugin id, an unknown dependency,
 * an incompatible plugin API version, a token bound twice without `override`, or a missing required port.
 * `register` does no I/O; call `start()` to open connections.
 */
export function createGateway(options: CreateGatewayOptions): Gateway {
  const container = new GatewayContainer();
  const logger = options.logger ?? silentLogger;
  const config: GatewayConfig = { ...defaultGatewayConfig, ...options.config };
  container.bind('core', configToken, () => config, false);
  container.bind('core', loggerToken, () => logger, false);
  container.bind('core', clockToken, () => options.clock ?? systemClock, false);
  container.bind('core', idGeneratorToken, () => options.ids ?? randomIdGenerator, false);

  const hooks: LifecycleHook[] = [];
  const binderFor = (owner: string): Binder => ({
    bindValue: (token, value, opts) => container.bind(owner, token, () => value, opts?.override ?? false),
    bindFactory: (token, factory, opts) => container.bind(owner, token, factory, opts?.override ?? false),
    contribute: (token, value) => container.contribute(token, value),
  });
  coreRegistrar?.(binderFor('core'), hooks);

  const seen = new Set<string>();
  for (const plugin of options.plugins) {
    if (seen.has(plugin.id)) throw new AssemblyError(`plugin "${plugin.id}" is registered twice`);
    if (plugin.apiVersion !== PLUGIN_API_VERSION) {
      throw new AssemblyError(`plugin "${plugin.id}" targets plugin API ${plugin.apiVersion}; this gateway supports ${PLUGIN_API_VERSION}`);
    }
    for (const dependency of plugin.dependsOn ?? []) {
      if (!seen.has(dependency)) {
        throw new AssemblyError(`plugin "${plugin.id}" depends on "${dependency}", which must be registered before it`);
      }
    }
    seen.add(plugin.id);
    try {
      plugin.register(binderFor(plugin.id));
    } catch (error) {
      if (error instanceof AssemblyError) throw error;
      throw new AssemblyError(`plugin "${plugin.id}" failed to register: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  for (const { token, hint } of requiredPorts) {
    if (!container.isBound(token)) throw new AssemblyError(`no plugin provides ${token.description}: add ${hint}`);
  }
  return new Gateway(container, options.plugins, hooks, logger);
}
