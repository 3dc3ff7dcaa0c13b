import { describe, expect, it } from 'vitest';
import { parseReplicaId, replicaGeneration, replicaIdFor, replicaSpecOf } from './replica-naming.js';

const longId = 'a'.repeat(30) + '-' + 'b'.repeat(32);
const deployment = { name: 'accounts/acme/deployments/d', baseModel: 'accounts/acme/models/base', acceleratorType: 'GPUX_A100_80GB', acceleratorCount: 1 };

describe('replica ids', () => {
  it.each(['d', longId, 'x-y-z'])('are ≤ 40 chars, lowercase/digits/hyphens and parse back (%s)', (id) => {
    const name = `accounts/${'c'.repeat(63)}/deployments/${id}`;
    for (const index of [0, 7, 123456]) {
      const replicaId = replicaIdFor(name, 'abc123', index);
      expect(replicaId.length).toBeLessThanOrEqual(40);
      expect(replicaId).toMatch(/^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/);
      expect(parseReplicaId(replicaId, name)).toEqual({ generation: 'abc123', index });
    }
  });

  it('differ between same-named deployments of different accounts, and do not parse for another deployment', () => {
    const a = replicaIdFor('accounts/a/deployments/d', 'abc123', 0);
    const b = replicaIdFor('accounts/b/deployments/d', 'abc123', 0);
    expect(a).not.toBe(b);
    expect(parseReplicaId(a, 'accounts/b/deployments/d')).toBeUndefined();
    expect(parseReplicaId('something-else', 'accounts/a/deployments/d')).toBeUndefined();
  });
});

describe('replica spec and generation', () => {
  it('takes serving fields from the deployment and sizing facts from the base model', () => {
    const spec = replicaSpecOf(
      { ...deployment, precision: 'FP8', draftModel: 'accounts/acme/models/draft', draftTokenCount: 4, enableAddons: true },
      { contextLength: 4096, baseModelDetails: { parameterCount: '8000000000' } },
    );
    expect(spec).toEqual({
      baseModel: 'accounts/acme/models/base',
      acceleratorType: 'GPUX_A100_80GB',
      acceleratorCount: 1,
      precision: 'FP8',
      parameterCount: '8000000000',
      modelContextLength: 4096,
      draftModel: 'accounts/acme/models/draft',
      draftTokenCount: 4,
      enableAddons: true,
    });
  });

  it('the generation changes with the spec or placement, not with other fields', () => {
    const g = replicaGeneration(replicaSpecOf(deployment), deployment);
    expect(g).toMatch(/^[0-9a-f]{6}$/);
    expect(replicaGeneration(replicaSpecOf({ ...deployment, displayName: 'x' }), { ...deployment, displayName: 'x' })).toBe(g);
    expect(replicaGeneration(replicaSpecOf({ ...deployment, acceleratorCount: 2 }), deployment)).not.toBe(g);
    expect(replicaGeneration(replicaSpecOf(deployment), { ...deployment, placement: { region: 'US_IOWA_1' } })).not.toBe(g);
  });
});
