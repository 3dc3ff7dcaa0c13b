/** One operation of the control-plane benchmark: a name and the path (with query) it requests. */
export interface ControlPlaneOperation {
  readonly name: string;
  readonly path: string;
}

/** The operations both control-plane benchmarks measure; `filter` is the one `gateway-server.ts` prints. */
export function controlPlaneOperations(filter: string): ControlPlaneOperation[] {
  return [
    { name: 'GET model', path: '/v1/accounts/bench/models/bench-model' },
    { name: 'GET model with 100 deployedModelRefs', path: '/v1/accounts/bench/models/busy-model' },
    { name: 'list deployments (filtered)', path: `/v1/accounts/bench/deployments?filter=${encodeURIComponent(filter)}&pageSize=50` },
  ];
}
