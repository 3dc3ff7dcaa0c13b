import type { JsonObject } from '@berth/core';

/**
 * Realistic Deployment bodies for the storage benchmark: the field set and formats the gateway's
 * DeploymentService writes, with state, baseModel, accelerator, replica counts and createTime varied
 * by a seeded generator (so PostgreSQL and memory hold the same rows).
 */
export const BENCH_ACCOUNT = 'bench';
export const BENCH_API_KEY = 'bench-storage-admin-key-0000000000';
export const BENCH_PAGE_TOKEN_SECRET = 'bench-storage-page-token-secret';
export const MODELS = Array.from({ length: 8 }, (_, i) => `accounts/${BENCH_ACCOUNT}/models/model-${i}`);
/** The benchmark's list request (AIP-160 filter, orderBy, pageSize). */
export const FILTER = `state = READY AND base_model = "${MODELS[0]}"`;
export const ORDER_BY = 'create_time desc';
export const PAGE_SIZE = 50;

const STATES: Array<[string, number]> = [['READY', 0.6], ['CREATING', 0.1], ['UPDATING', 0.08], ['FAILED', 0.1], ['DELETING', 0.07], ['DELETED', 0.05]];
/** model-0 is the popular one (25%); the rest share the remainder. */
const MODEL_WEIGHTS: Array<[string, number]> = MODELS.map((m, i) => [m, i === 0 ? 0.25 : 0.75 / (MODELS.length - 1)]);
const ACCELERATORS: Array<[string, number]> = [['GPUX_H100_80GB', 0.45], ['GPUX_A100_80GB', 0.35], ['GPUY_MI300X_192GB', 0.15], ['GPUX_A10G_24GB', 0.05]];
const REGIONS = ['US_IOWA_1', 'US_VIRGINIA_1', 'US_ILLINOIS_1', 'AP_TOKYO_1', 'EU_LONDON_1'];

/** mulberry32: small, fast, seeded. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pick<T>(weights: Array<[T, number]>, r: number): T {
  let acc = 0;
  for (const [value, weight] of weights) {
    acc += weight;
    if (r < acc) return value;
  }
  return weights[weights.length - 1]![0];
}

export interface DeploymentRow {
  readonly name: string;
  readonly data: JsonObject;
}

/** Deployment `index` (0-based) of the seeded set; createTimes spread over the 180 days before `now`. */
export function* deploymentBodies(count: number, now = Date.parse('2026-11-01T00:00:00.000Z')): Generator<DeploymentRow> {
  const next = random(20261101);
  const span = 180 * 24 * 3600 * 1000;
  for (let i = 0; i < count; i++) {
    const id = `d-${i.toString().padStart(6, '0')}`;
    const name = `accounts/${BENCH_ACCOUNT}/deployments/${id}`;
    const created = now - Math.floor(next() * span);
    const updated = created + Math.floor(next() * 3600_000);
    const state = pick(STATES, next());
    const acceleratorType = pick(ACCELERATORS, next());
    const maxReplicaCount = 1 + Math.floor(next() * 8);
    const ready = state === 'READY' ? 1 + Math.floor(next() * maxReplicaCount) : 0;
    const region = REGIONS[Math.floor(next() * REGIONS.length)]!;
    yield {
      name,
      data: {
        name,
        displayName: `deployment ${i}`,
        createTime: new Date(created).toISOString(),
        updateTime: new Date(updated).toISOString(),
        state,
        ...(state === 'FAILED' ? { status: { code: 'RESOURCE_EXHAUSTED', message: 'no capacity for the requested accelerators' } } : {}),
        minReplicaCount: 0,
        maxReplicaCount,
        replicaCount: ready,
        desiredReplicaCount: state === 'DELETED' || state === 'DELETING' ? 0 : Math.max(1, ready),
        replicaStats: {
          pendingSchedulingReplicaCount: state === 'CREATING' ? 1 : 0,
          downloadingModelReplicaCount: 0,
          initializingReplicaCount: state === 'UPDATING' ? 1 : 0,
          readyReplicaCount: ready,
        },
        autoscalingPolicy: { scaleUpWindow: '30s', scaleDownWindow: '600s', scaleToZeroWindow: '3600s' },
        baseModel: pick(MODEL_WEIGHTS, next()),
        acceleratorCount: [1, 2, 4, 8][Math.floor(next() * 4)]!,
        acceleratorType,
        placement: { multiRegion: 'GLOBAL' },
        region,
      },
    };
  }
}
