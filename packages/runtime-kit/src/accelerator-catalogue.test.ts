import { describe, expect, it } from 'vitest';
import { acceleratorCatalogue } from './accelerator-catalogue.js';

describe('acceleratorCatalogue', () => {
  it('adds the vendor and the per-replica maximum to every row', () => {
    expect(acceleratorCatalogue('acme', [['ACME_X1_16GB', 16, 1, 'X-series', ['FP16']]], 4)).toEqual([
      { type: 'ACME_X1_16GB', vendor: 'acme', memoryGiB: 16, generation: 1, generationName: 'X-series', supportedPrecisions: ['FP16'], maxAcceleratorsPerReplica: 4 },
    ]);
    expect(acceleratorCatalogue('acme', [['ACME_X2_32GB', 32, 2, 'X-series', ['BF16']]])[0]?.maxAcceleratorsPerReplica).toBe(8);
  });
});
