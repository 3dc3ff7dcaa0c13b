import type { AcceleratorTypeInfo, Precision } from '@berth/core';

/** One accelerator type of a vendor's catalogue, before the vendor-wide fields are added. */
export type CatalogueEntry = [type: string, memoryGiB: number, generation: number, generationName: string, supportedPrecisions: readonly Precision[]];

/**
 * A vendor's accelerator catalogue from compact rows: every type gets the vendor's name and its
 * `maxAcceleratorsPerReplica` (default 8, one node's worth).
 */
export function acceleratorCatalogue(vendor: string, rows: readonly CatalogueEntry[], maxAcceleratorsPerReplica = 8): readonly AcceleratorTypeInfo[] {
  return rows.map(([type, memoryGiB, generation, generationName, supportedPrecisions]) => ({
    type, vendor, memoryGiB, generation, generationName, supportedPrecisions, maxAcceleratorsPerReplica,
  }));
}
