import { afterEach, describe, expect, it } from 'vitest';
import { memoryStorage } from '../testing/index.js';
import { createTestRuntime, testRuntime } from '../testing/test-runtime.js';
import { createTestGateway, principalContext, type TestGateway } from '../testing/test-gateway.js';
import { baseModelFacts } from '../resources/common/placement-defaults.js';
import { runtimeServingAdvisor } from './runtime-serving-advisor.js';

const ctx = principalContext('acme', 'admin');
const advisor = runtimeServingAdvisor([createTestRuntime()]);
const facts70b = baseModelFacts({ baseModelDetails: { parameterCount: '70000000000' }, contextLength: 8192 });

function errorOf(fn: () => unknown): { code: string; field?: string; message: string } {
  try {
    fn();
  } catch (error) {
    return error as { code: string; field?: string; message: string };
  }
  throw new Error('expected an error');
}

describe('runtimeServingAdvisor', () => {
  it('sizes the default acceleratorCount from parameterCount, precision and context length', () => {
    expect(advisor.minimumAcceleratorCount({ acceleratorType: 'GPUX_A100_80GB' }, facts70b)).toBe(4);
    expect(advisor.minimumAcceleratorCount({ acceleratorType: 'GPUX_H200_141GB' }, facts70b)).toBe(2);
    expect(advisor.minimumAcceleratorCount({ acceleratorType: 'GPUX_A100_80GB' }, baseModelFacts({ baseModelDetails: {} }))).toBeUndefined();
  });

  it('an unsupported (type, precision) is INVALID_ARGUMENT naming both', () => {
    const error = errorOf(() => advisor.validate(ctx, { acceleratorType: 'GPUX_A100_80GB', precision: 'FP8', acceleratorCount: 8 }, facts70b));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toContain('FP8');
    expect(error.message).toContain('GPUX_A100_80GB');
  });

  it('an undersized count is INVALID_ARGUMENT unless disableDeploymentSizeValidation', () => {
    const error = errorOf(() => advisor.validate(ctx, { acceleratorType: 'GPUX_A100_80GB', acceleratorCount: 1 }, facts70b));
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', field: 'acceleratorCount' });
    advisor.validate(ctx, { acceleratorType: 'GPUX_A100_80GB', acceleratorCount: 1, disableDeploymentSizeValidation: true }, facts70b);
    advisor.validate(ctx, { acceleratorType: 'GPUX_A100_80GB', acceleratorCount: 4 }, facts70b);
  });

  it('a type no runtime serves is INVALID_ARGUMENT on acceleratorType', () => {
    expect(errorOf(() => advisor.validate(ctx, { acceleratorType: 'GPUY_MI300X_192GB', acceleratorCount: 1 }, facts70b))).toMatchObject({ field: 'acceleratorType' });
  });
});

describe('with a runtime plugin installed', () => {
  let tg: TestGateway;
  afterEach(async () => {
    await tg.stop();
  });

  it('deployments and shapes get the runtime’s default count and checks', async () => {
    tg = await createTestGateway({ plugins: [memoryStorage(), testRuntime({ simulated: { delays: { schedulingMs: 10, downloadingMs: 10, initializingMs: 10 } } })] });
    await tg.services.models.create(ctx, 'acme', { kind: 'HUB_BASE_MODEL', baseModelDetails: { parameterCount: '70000000000' }, contextLength: 8192 }, 'big');
    const base = 'accounts/acme/models/big';
    const shape = await tg.services.deploymentShapes.create(ctx, 'acme', { baseModel: base }, 'shape');
    expect(shape.acceleratorCount).toBe(4);
    await expect(tg.services.deployments.create(ctx, 'acme', { baseModel: base, acceleratorCount: 2 }, { deploymentId: 'small' })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      field: 'acceleratorCount',
    });
    await expect(tg.services.deployments.create(ctx, 'acme', { baseModel: base, precision: 'FP4' }, { deploymentId: 'fp4' })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      field: 'precision',
    });
    const created = await tg.services.deployments.create(ctx, 'acme', { baseModel: base, acceleratorType: 'GPUX_H200_141GB' }, { deploymentId: 'd', validateOnly: true });
    expect(created.acceleratorCount).toBe(2);
  });
});
