export * from './metrics-plugin.js';
export * from './gateway-metrics.js';
export * from './metrics-settings.js';
