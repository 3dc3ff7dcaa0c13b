import { describe, expect, it } from 'vitest';
import { readRuntimeNames, simulatedRuntimes } from './runtime-selection.js';

describe('BERTH_RUNTIMES', () => {
  it('installs gpux and gpuy by default, any subset when named, none with "none"', () => {
    expect(readRuntimeNames({})).toEqual(['gpux', 'gpuy']);
    expect(readRuntimeNames({ BERTH_RUNTIMES: ' GPUY ' })).toEqual(['gpuy']);
    expect(readRuntimeNames({ BERTH_RUNTIMES: 'gpux,gpux' })).toEqual(['gpux']);
    expect(readRuntimeNames({ BERTH_RUNTIMES: 'none' })).toEqual([]);
    expect(simulatedRuntimes(['gpux', 'gpuy']).map((plugin) => plugin.id)).toEqual(['runtime-gpux', 'runtime-gpuy']);
  });

  it('refuses an unknown runtime, naming the choices', () => {
    expect(() => readRuntimeNames({ BERTH_RUNTIMES: 'gpux,tpu' })).toThrow('BERTH_RUNTIMES "gpux,tpu": "tpu" is not one of gpux, gpuy (or "none" for no runtime)');
  });
});
