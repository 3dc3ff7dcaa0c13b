import { AssemblyError, GatewayContainer, type Resolver } from './container.js';
import { defaultGatewayConfig, type GatewayConfig } from './config.js';
import type { Binder, Contribution, GatewayPlugin, LifecycleContext, LifecycleHook } from './plugin.js';
import { PLUGIN_API_VERSION } from './plugin.js';
import type { Dependency, Token } from './token.js';
import {
  authenticatorToken, clockToken, observersToken, telemetryToken, configToken, idGeneratorToken, lifecycleHooksToken, loggerToken, storageToken,
} from './tokens.js';
import { systemClock, type Clock } from '../ports/clock.js';
import { randomIdGenerator, type IdGenerator } from '../ports/id-generator.js';
import { silentLogger, type GatewayLogger } from '../ports/logger.js';
import { combineObservers, type TelemetryObserver } from '../ports/telemetry.js';

export interface CreateGatewayOptions {
  readonly plugins: readonly GatewayPlugin[];
  readonly config?: Partial<GatewayConfig>;
  readonly logger?: GatewayLogger;
  readonly clock?: Clock;
  readonly ids?: IdGenerator;
}

/** Tokens that must be bound before a gateway can start (their `providedBy` names what to add). */
const requiredPorts: ReadonlyArray<Token<unknown>> = [storageToken, authenticatorToken];

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

  /**
   * Starts plugins in registration order, then the lifecycle hooks contributed to `lifecycleHooksToken`
   * (work that needs every plugin started, such as bootstrap and the reconciler). On failure, stops what
   * started and rethrows.
   */
  async start(): Promise<void> {
    if (this.stateValue !== 'assembled') throw new Error(`gateway cannot start from state ${this.stateValue}`);
    this.stateValue = 'starting';
    const ctx = this.lifecycleContext();
    try {
      for (const plugin of this.plugins) {
        await plugin.start?.(ctx);
        this.started.push(plugin);
      }
      for (const hook of this.container.resolveAll(lifecycleHooksToken)) {
        await hook.start?.(ctx);
        this.started.push(hook);
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

/**
 * Assembles a gateway from modules (core's own, registered first) and the host's plugins. Fails fast,
 * naming the plugin, on a duplicate plugin id, an unknown dependency, an incompatible plugin API version,
 * a token bound twice without `override`, a missing required port, or a binding whose declared
 * dependencies are unbound or cyclic. `register` does no I/O; call `start()` to open connections.
 */
export function assembleGateway(options: CreateGatewayOptions & { readonly modules: readonly GatewayPlugin[] }): Gateway {
  const container = new GatewayContainer();
  const logger = options.logger ?? silentLogger;
  const config: GatewayConfig = { ...defaultGatewayConfig, ...options.config };
  container.bindValue('gateway', configToken, config, false);
  container.bindValue('gateway', loggerToken, logger, false);
  container.bindValue('gateway', clockToken, options.clock ?? systemClock, false);
  container.bindValue('gateway', idGeneratorToken, options.ids ?? randomIdGenerator, false);
  container.bind('gateway', telemetryToken, [observersToken], (observers) => combineObservers(observers as readonly TelemetryObserver[]), false);

  const binderFor = (owner: string): Binder => ({
    bind: (binding) => container.bind(owner, binding.token, binding.deps, binding.factory as (...args: unknown[]) => unknown, binding.override ?? false),
    bindValue: (token, value, opts) => container.bindValue(owner, token, value, opts?.override ?? false),
    contribute: (target: Token<unknown> | Contribution<unknown, readonly Dependency[]>, value?: unknown) => {
      if ('key' in target) container.contribute(owner, target, [], () => value);
      else container.contribute(owner, target.token, target.deps, target.factory as (...args: unknown[]) => unknown);
    },
  });

  const seen = new Set<string>(['gateway']);
  const register = (plugin: GatewayPlugin): void => {
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
  };
  for (const module of options.modules) register(module);
  for (const plugin of options.plugins) register(plugin);
  for (const token of requiredPorts) {
    if (!container.isBound(token)) throw new AssemblyError(`no plugin provides ${token.description}: add ${token.providedBy ?? 'a plugin that binds it'}`);
  }
  container.checkGraph();
  return new Gateway(container, [...options.modules, ...options.plugins], logger);
}
