import { describe, expect, it } from 'vitest';
import type { Binder } from '../kernel/plugin.js';
import { imageEnginesToken } from '../kernel/tokens.js';
import type { ImageEngine } from '../ports/image-engine.js';
import { imageEngineOf, vendorRuntimePlugin } from './vendor-runtime.js';
import type { AcceleratorRuntime } from '../ports/accelerator-runtime.js';

describe('image engines of vendor runtimes', () => {
  it('serves the reference engine on the simulated pool and none elsewhere by default', () => {
    expect(imageEngineOf(undefined, true)).toMatchObject({ engine: { name: 'reference' }, owned: true });
    expect(imageEngineOf(undefined, false)).toEqual({ engine: undefined, owned: false });
    expect(imageEngineOf({ kind: 'none' }, true)).toEqual({ engine: undefined, owned: false });
    expect(imageEngineOf({ kind: 'upstream', url: 'http://images.internal:8000' }, false))
      .toMatchObject({ engine: { name: 'upstream http://images.internal:8000' }, owned: true });
    const own: ImageEngine = { name: 'mine', generate: async () => { throw new Error('unused'); } };
    expect(imageEngineOf(own, true)).toEqual({ engine: own, owned: false });
  });

  it('contributes the engine and closes the one it owns on stop', async () => {
    let closed = 0;
    const engine: ImageEngine = { name: 'e', generate: async () => { throw new Error('unused'); }, close: async () => { closed += 1; } };
    // Only the provisioner's close is used by stop.
    const runtime = { provisioner: { close: async () => undefined } } as unknown as AcceleratorRuntime;
    const plugin = vendorRuntimePlugin('runtime-v', runtime, true, { engine, owned: true });
    const contributed: unknown[] = [];
    const binder = {
      bind: () => undefined,
      bindValue: () => undefined,
      contribute: (token: unknown, value: unknown) => {
        if (token === imageEnginesToken) contributed.push(value);
      },
    } as unknown as Binder;
    plugin.register(binder);
    expect(contributed).toEqual([engine]);
    await plugin.stop?.({ resolver: undefined as never, logger: undefined as never, signal: new AbortController().signal });
    expect(closed).toBe(1);
  });
});
