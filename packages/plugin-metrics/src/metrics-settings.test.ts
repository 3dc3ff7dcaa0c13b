import { describe, expect, it } from 'vitest';
import { metricsOptionsFromEnv } from './metrics-settings.js';
import { metrics } from './metrics-plugin.js';

describe('metricsOptionsFromEnv', () => {
  it('is on by default, off with BERTH_METRICS=false', () => {
    expect(metricsOptionsFromEnv({})).toEqual({});
    expect(metricsOptionsFromEnv({ BERTH_METRICS: 'false' })).toBeUndefined();
  });

  it('reads the token, the own port and host, and the path', () => {
    expect(metricsOptionsFromEnv({ BERTH_METRICS_TOKEN: 't'.repeat(20), BERTH_METRICS_PORT: '9464', BERTH_METRICS_HOST: '0.0.0.0', BERTH_METRICS_PATH: '/m' }))
      .toEqual({ bearerToken: 't'.repeat(20), port: 9464, host: '0.0.0.0', path: '/m' });
  });

  it('names the variable of a malformed value', () => {
    expect(() => metricsOptionsFromEnv({ BERTH_METRICS: 'yes' })).toThrow('BERTH_METRICS');
    expect(() => metricsOptionsFromEnv({ BERTH_METRICS_PORT: 'http' })).toThrow('BERTH_METRICS_PORT');
  });
});

describe('metrics()', () => {
  it('refuses options out of range', () => {
    expect(() => metrics({ path: 'metrics' })).toThrow('path');
    expect(() => metrics({ port: 70000 })).toThrow('port');
    expect(() => metrics({ bearerToken: 'short' })).toThrow('bearerToken');
  });
});
