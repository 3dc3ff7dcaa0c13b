import { definePlugin, type GatewayPlugin } from '../kernel/plugin.js';
import type { ServingOptions } from '../serving/serving-options.js';
import { servingOptionsToken } from './tokens.js';

/** A plugin that sets the serving tunables (replaces core's defaults). */
export function servingOptions(options: ServingOptions): GatewayPlugin {
  return definePlugin({
    id: 'serving-options',
    register(binder) {
      binder.bindValue(servingOptionsToken, options, { override: true });
    },
  });
}
