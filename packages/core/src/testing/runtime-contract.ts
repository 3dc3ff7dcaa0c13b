import { afterEach, describe, expect, it } from 'vitest';
import { GatewayError } from '../errors/index.js';
import { precisions } from '../runtime/precision.js';
import { systemContext } from '../contracts/request-context.js';
import type { AcceleratorTypeInfo, AcceleratorRuntime } from '../ports/accelerator-runtime.js';
import type { Precision } from '../contracts/precision.js';
import { isReplicaPhaseTransitionAllowed, type ReplicaPhase, type ReplicaPhaseEvent, type ReplicaSpec } from '../ports/provisioner.js';

export interface RuntimeContractOptions {
  /** Run the provisioning tests (start, settle, list, stop). Default true. */
  readonly provisioning?: boolean;
  /** Makes the runtime's next started replica fail; enables the failure-path test when given. */
  readonly injectFailure?: (runtime: AcceleratorRuntime) => void | Promise<void>;
  /** How long a replica may take to become ready. Default 20 s. */
  readonly readyTimeoutMs?: number;
  /** The replica spec the provisioning tests start on an accelerator type. Default: a 1B-parameter model. */
  readonly sampleSpec?: (info: AcceleratorTypeInfo) => ReplicaSpec;
  /** Check that a ready replica's endpoint answers `GET {endpoint}/v1/models`. Default true. */
  readonly checkEndpoint?: boolean;
}

function caught(fn: () => unknown): GatewayError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    return error as GatewayError;
  }
  throw new Error('expected a GatewayError to be thrown');
}

const defaultSpec = (info: AcceleratorTypeInfo): ReplicaSpec => ({
  baseModel: 'accounts/contract/models/tiny-1b',
  acceleratorType: info.type,
  acceleratorCount: 1,
  precision: info.supportedPrecisions.includes('BF16') ? 'BF16' : (info.supportedPrecisions[0] as Precision),
  parameterCount: '1000000000',
  maxContextLength: 4096,
});

/**
 * The contract every {@link AcceleratorRuntime} must pass, the built-in ones and third-party ones alike:
 * catalogue well-formedness, precision validation, sizing, launch specs and the provisioner lifecycle.
 *
 * ```ts
 * describeRuntimeContract('my-vendor', () => createMyRuntime({ provisioner: { kind: 'simulated' } }));
 * ```
 * The factory is called once per test; the runtime's provisioner is closed after each.
 */
export function describeRuntimeContract(
  name: string,
  factory: () => AcceleratorRuntime | Promise<AcceleratorRuntime>,
  options: RuntimeContractOptions = {},
): void {
  const readyTimeoutMs = options.readyTimeoutMs ?? 20_000;
  const sampleSpec = options.sampleSpec ?? defaultSpec;

  describe(`AcceleratorRuntime contract: ${name}`, () => {
    const opened: AcceleratorRuntime[] = [];
    const open = async () => {
      const runtime = await factory();
      opened.push(runtime);
      return runtime;
    };
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((r) => r.provisioner.close()));
    });

    describe('catalogue', () => {
      it('declares at least one well-formed accelerator type', async () => {
        const runtime = await open();
        expect(runtime.id).toMatch(/^[a-z][a-z0-9-]*$/);
        expect(runtime.vendor.length).toBeGreaterThan(0);
        expect(runtime.acceleratorTypes.length).toBeGreaterThan(0);
        const seen = new Set<string>();
        for (const info of runtime.acceleratorTypes) {
          expect(info.type).toMatch(/^[A-Z][A-Z0-9_]*$/);
          expect(seen.has(info.type)).toBe(false);
          seen.add(info.type);
          expect(info.vendor).toBe(runtime.vendor);
          expect(info.memoryGiB).toBeGreaterThan(0);
          expect(Number.isInteger(info.generation) && info.generation >= 1).toBe(true);
          expect(info.generationName.length).toBeGreaterThan(0);
          expect([1, 2, 4, 8]).toContain(info.maxAcceleratorsPerReplica);
          expect(info.supportedPrecisions.length).toBeGreaterThan(0);
          for (const p of info.supportedPrecisions) expect(precisions).toContain(p);
          expect(info.supportedPrecisions).not.toContain('PRECISION_UNSPECIFIED');
          expect(info.supportedPrecisions.some((p) => p === 'FP16' || p === 'BF16')).toBe(true);
        }
      });

      it('describes its own types and no others', async () => {
        const runtime = await open();
        for (const info of runtime.acceleratorTypes) expect(runtime.describe(info.type)).toEqual(info);
        expect(runtime.describe('NOT_AN_ACCELERATOR')).toBeUndefined();
        expect(runtime.describe('ACCELERATOR_TYPE_UNSPECIFIED')).toBeUndefined();
      });
    });

    describe('validate', () => {
      it('accepts every declared (type, precision) pair and the unspecified precision', async () => {
        const runtime = await open();
        for (const info of runtime.acceleratorTypes) {
          for (const precision of info.supportedPrecisions) {
            expect(runtime.validate({ acceleratorType: info.type, precision })).toEqual(info);
          }
          if (info.supportedPrecisions.includes('BF16')) {
            expect(runtime.validate({ acceleratorType: info.type })).toEqual(info);
            expect(runtime.validate({ acceleratorType: info.type, precision: 'PRECISION_UNSPECIFIED' })).toEqual(info);
          }
        }
      });

      it('rejects an unsupported precision with INVALID_ARGUMENT naming both', async () => {
        const runtime = await open();
        for (const info of runtime.acceleratorTypes) {
          for (const precision of precisions) {
            if (precision === 'PRECISION_UNSPECIFIED' || info.supportedPrecisions.includes(precision)) continue;
            const error = caught(() => runtime.validate({ acceleratorType: info.type, precision }));
            expect(error.code).toBe('INVALID_ARGUMENT');
            expect(error.field).toBe('precision');
            expect(error.message).toContain(precision);
            expect(error.message).toContain(info.type);
          }
        }
      });

      it('rejects an accelerator type it does not serve', async () => {
        const runtime = await open();
        const error = caught(() => runtime.validate({ acceleratorType: 'NOT_AN_ACCELERATOR', precision: 'FP16' }));
        expect(error.code).toBe('INVALID_ARGUMENT');
        expect(error.field).toBe('acceleratorType');
        expect(error.message).toContain('NOT_AN_ACCELERATOR');
        const unknownPrecision = caught(() =>
          runtime.validate({ acceleratorType: runtime.acceleratorTypes[0]!.type, precision: 'FP3' as Precision }),
        );
        expect(unknownPrecision.code).toBe('INVALID_ARGUMENT');
      });
    });

    describe('sizing', () => {
      it('fits a small model on one accelerator and rounds to tensor-parallel sizes', async () => {
        const runtime = await open();
        for (const info of runtime.acceleratorTypes) {
          const precision = info.supportedPrecisions[0] as Precision;
          const small = runtime.estimateSize({ acceleratorType: info.type, precision, parameterCount: '100000000', contextLength: 2048 });
          expect(small.acceleratorCount).toBe(1);
          for (const params of ['1000000000', '8000000000', '30000000000', '70000000000']) {
            try {
              const estimate = runtime.estimateSize({ acceleratorType: info.type, precision, parameterCount: params });
              expect([1, 2, 4, 8]).toContain(estimate.acceleratorCount);
              expect(estimate.acceleratorCount).toBeGreaterThanOrEqual(estimate.minimumAccelerators);
              expect(estimate.acceleratorCount).toBeLessThanOrEqual(info.maxAcceleratorsPerReplica);
            } catch (error) {
              expect((error as GatewayError).code).toBe('INVALID_ARGUMENT');
              expect((error as GatewayError).field).toBe('acceleratorCount');
            }
          }
        }
      });

      it('never needs fewer accelerators for a bigger model or a longer context', async () => {
        const runtime = await open();
        const info = runtime.acceleratorTypes[0]!;
        const precision = info.supportedPrecisions[0] as Precision;
        let previous = 0;
        for (const params of ['1000000000', '3000000000', '7000000000', '13000000000', '34000000000']) {
          let count: number;
          try {
            count = runtime.estimateSize({ acceleratorType: info.type, precision, parameterCount: params }).acceleratorCount;
          } catch {
            break;
          }
          expect(count).toBeGreaterThanOrEqual(previous);
          previous = count;
        }
        const short = runtime.estimateSize({ acceleratorType: info.type, precision, parameterCount: '1000000000', contextLength: 1024 });
        const long = runtime.estimateSize({ acceleratorType: info.type, precision, parameterCount: '1000000000', contextLength: 32768 });
        expect(long.requiredBytes).toBeGreaterThan(short.requiredBytes);
      });

      it('rejects a model that does not fit on the largest replica, and malformed counts', async () => {
        const runtime = await open();
        for (const info of runtime.acceleratorTypes) {
          const error = caught(() =>
            runtime.estimateSize({ acceleratorType: info.type, precision: info.supportedPrecisions[0] as Precision, parameterCount: '20000000000000' }),
          );
          expect(error.code).toBe('INVALID_ARGUMENT');
          expect(error.message).toContain(info.type);
        }
        const type = runtime.acceleratorTypes[0]!.type;
        for (const bad of ['abc', '-5', '0', '1.5', '']) {
          const error = caught(() => runtime.estimateSize({ acceleratorType: type, parameterCount: bad }));
          expect(error.code).toBe('INVALID_ARGUMENT');
          expect(error.field).toBe('parameterCount');
        }
      });

      it('checks explicit accelerator counts unless size validation is disabled', async () => {
        const runtime = await open();
        const info = runtime.acceleratorTypes[0]!;
        const precision = info.supportedPrecisions[0] as Precision;
        expect(caught(() => runtime.checkSize({ acceleratorType: info.type, precision, parameterCount: '1000000000', acceleratorCount: 3 })).field).toBe(
          'acceleratorCount',
        );
        expect(runtime.checkSize({ acceleratorType: info.type, precision, parameterCount: '1000000000', acceleratorCount: 1 })?.acceleratorCount).toBe(1);
        const big = (() => {
          try {
            return runtime.estimateSize({ acceleratorType: info.type, precision, parameterCount: '70000000000' });
          } catch {
            return undefined;
          }
        })();
        if (big && big.acceleratorCount > 1) {
          const error = caught(() => runtime.checkSize({ acceleratorType: info.type, precision, parameterCount: '70000000000', acceleratorCount: 1 }));
          expect(error.code).toBe('INVALID_ARGUMENT');
          expect(error.field).toBe('acceleratorCount');
          expect(
            runtime.checkSize({
              acceleratorType: info.type,
              precision,
              parameterCount: '70000000000',
              acceleratorCount: 1,
              disableDeploymentSizeValidation: true,
            }),
          ).toBeUndefined();
        }
      });
    });

    describe('launch specs', () => {
      it('renders tensor parallelism, devices and the model', async () => {
        const runtime = await open();
        for (const info of runtime.acceleratorTypes) {
          const count = Math.min(2, info.maxAcceleratorsPerReplica);
          const spec: ReplicaSpec = { ...sampleSpec(info), acceleratorCount: count };
          const launch = runtime.renderLaunchSpec(spec);
          expect(launch.vendor).toBe(runtime.vendor);
          expect(launch.acceleratorType).toBe(info.type);
          expect(launch.acceleratorCount).toBe(count);
          expect(launch.engineArgs.tensorParallelSize).toBe(count);
          expect(Object.values(launch.resources)).toContain(count);
          expect(launch.image.length).toBeGreaterThan(0);
          expect(launch.args.join(' ')).toContain(`--tensor-parallel-size ${count}`);
          expect(launch.engineArgs.servedModelName).toBe(spec.servedModelId ?? spec.baseModel);
        }
        const info = runtime.acceleratorTypes[0]!;
        expect(caught(() => runtime.renderLaunchSpec({ ...sampleSpec(info), acceleratorCount: 3 })).field).toBe('acceleratorCount');
      });
    });

    if (options.provisioning === false) return;

    describe('provisioner', () => {
      const ctx = systemContext('runtime-contract');

      it('starts a replica through the phases to ready with an OpenAI-compatible endpoint', async () => {
        const runtime = await open();
        const info = runtime.acceleratorTypes[0]!;
        const spec = sampleSpec(info);
        const handle = await runtime.provisioner.startReplica(ctx, { replicaId: 'contract-a', deployment: 'accounts/contract/deployments/a', spec });
        const phases: ReplicaPhase[] = [handle.status().phase];
        const events: ReplicaPhaseEvent[] = [];
        handle.onPhase((event) => events.push(event));
        expect(['pending_scheduling', 'downloading', 'initializing', 'ready']).toContain(phases[0]);
        const status = await handle.settled({ timeoutMs: readyTimeoutMs });
        expect(status.phase).toBe('ready');
        expect(status.endpoint).toMatch(/^https?:\/\//);
        for (const event of events) {
          expect(isReplicaPhaseTransitionAllowed(event.from, event.to)).toBe(true);
          phases.push(event.to);
        }
        expect(phases.at(-1)).toBe('ready');
        if (options.checkEndpoint !== false) {
          const response = await fetch(`${status.endpoint}/v1/models`);
          expect(response.ok).toBe(true);
          const body = (await response.json()) as { data: { id: string }[] };
          expect(body.data.map((m) => m.id)).toContain(spec.servedModelId ?? spec.baseModel);
        }
      });

      it('is idempotent on replicaId and lists its replicas by deployment', async () => {
        const runtime = await open();
        const spec = sampleSpec(runtime.acceleratorTypes[0]!);
        const a = await runtime.provisioner.startReplica(ctx, { replicaId: 'contract-b1', deployment: 'accounts/contract/deployments/b', spec });
        const again = await runtime.provisioner.startReplica(ctx, { replicaId: 'contract-b1', deployment: 'accounts/contract/deployments/b', spec });
        expect(again.replicaId).toBe(a.replicaId);
        await runtime.provisioner.startReplica(ctx, { replicaId: 'contract-c1', deployment: 'accounts/contract/deployments/c', spec });
        const listed = await runtime.provisioner.listReplicas(ctx, { deployment: 'accounts/contract/deployments/b' });
        expect(listed.map((h) => h.replicaId)).toEqual(['contract-b1']);
        expect(listed[0]?.deployment).toBe('accounts/contract/deployments/b');
        const all = await runtime.provisioner.listReplicas(ctx);
        expect(all.map((h) => h.replicaId).sort()).toEqual(['contract-b1', 'contract-c1']);
      });

      it('stops replicas idempotently and stops listing them', async () => {
        const runtime = await open();
        const spec = sampleSpec(runtime.acceleratorTypes[0]!);
        const handle = await runtime.provisioner.startReplica(ctx, { replicaId: 'contract-d1', deployment: 'accounts/contract/deployments/d', spec });
        await handle.settled({ timeoutMs: readyTimeoutMs });
        await runtime.provisioner.stopReplica(ctx, 'contract-d1');
        expect(handle.status().phase).toBe('stopped');
        await runtime.provisioner.stopReplica(ctx, 'contract-d1');
        await runtime.provisioner.stopReplica(ctx, 'never-started');
        expect(await runtime.provisioner.listReplicas(ctx, { deployment: 'accounts/contract/deployments/d' })).toEqual([]);
      });

      it('rejects a malformed replica id with INVALID_ARGUMENT', async () => {
        const runtime = await open();
        const spec = sampleSpec(runtime.acceleratorTypes[0]!);
        await expect(runtime.provisioner.startReplica(ctx, { replicaId: 'Not Valid', deployment: 'accounts/contract/deployments/e', spec })).rejects.toMatchObject({
          code: 'INVALID_ARGUMENT',
        });
      });

      if (options.injectFailure) {
        const injectFailure = options.injectFailure;
        it('reports an injected failure as the failed phase', async () => {
          const runtime = await open();
          await injectFailure(runtime);
          const spec = sampleSpec(runtime.acceleratorTypes[0]!);
          const handle = await runtime.provisioner.startReplica(ctx, { replicaId: 'contract-f1', deployment: 'accounts/contract/deployments/f', spec });
          const status = await handle.settled({ timeoutMs: readyTimeoutMs });
          expect(status.phase).toBe('failed');
          expect(status.message?.length ?? 0).toBeGreaterThan(0);
          expect(status.endpoint).toBeUndefined();
        });
      }
    });
  });
}
