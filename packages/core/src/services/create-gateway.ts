import { assembleGateway, type CreateGatewayOptions, type Gateway } from '../kernel/gateway.js';
import { coreModule } from './core-module.js';

/**
 * Assembles a gateway: core's module, then the host's plugins (so a plugin may override a core binding).
 * Fails fast, naming the plugin, on a duplicate plugin id, an unknown dependency, an incompatible plugin
 * API version, a token bound twice without `override`, a missing required port, or a binding whose declared
 * dependencies are missing or cyclic. `register` does no I/O; call `start()` to open connections.
 */
export function createGateway(options: CreateGatewayOptions): Gateway {
  return assembleGateway({ ...options, modules: [coreModule()] });
}
