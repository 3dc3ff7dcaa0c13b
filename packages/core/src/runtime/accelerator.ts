
/** Tensor-parallel sizes a replica may use. */
export const tensorParallelSizes = [1, 2, 4, 8] as const;
