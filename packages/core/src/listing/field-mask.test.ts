import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../contracts/json.js';
import { applyReadMask, applyUpdateMask, parseFieldMask } from './field-mask.js';
import { invalid } from './test-fixtures.js';

const top = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    displayName: { type: 'string' },
    state: { type: 'string' },
    autoscalingPolicy: {
      type: 'object',
      properties: { scaleUpWindow: { type: 'string' }, scaleDownWindow: { type: 'string' }, loadTargets: { type: 'object', additionalProperties: { type: 'number' } } },
    },
    deployedModels: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, state: { type: 'string' } } } },
    labels: { type: 'object', additionalProperties: { type: 'string' } },
    userData: { type: 'object' },
  },
} as const;

const resource: JsonObject = {
  name: 'accounts/a/deployments/d',
  displayName: 'D',
  state: 'READY',
  autoscalingPolicy: { scaleUpWindow: '30s', scaleDownWindow: '600s', loadTargets: { qps: 1 } },
  deployedModels: [
    { name: 'm1', state: 'DEPLOYED', extra: 1 },
    { name: 'm2', state: 'DEPLOYING', extra: 2 },
  ],
  labels: { env: 'prod' },
};

describe('parseFieldMask', () => {
  it('returns undefined for absent, empty and *', () => {
    expect(parseFieldMask(undefined, top)).toBeUndefined();
    expect(parseFieldMask('', top)).toBeUndefined();
    expect(parseFieldMask('  ', top)).toBeUndefined();
    expect(parseFieldMask(' * ', top)).toBeUndefined();
  });

  it('normalises snake_case to dotted camelCase and removes duplicates', () => {
    expect(parseFieldMask('display_name, autoscaling_policy.scale_up_window,displayName', top)).toEqual([
      'displayName',
      'autoscalingPolicy.scaleUpWindow',
    ]);
  });

  it('checks sub-paths against the schema at every depth', () => {
    expect(parseFieldMask('autoscaling_policy.load_targets.my_metric,deployed_models.state,labels.team_name,user_data.any_key.deeper', top)).toEqual([
      'autoscalingPolicy.loadTargets.my_metric',
      'deployedModels.state',
      'labels.team_name',
      'userData.any_key.deeper',
    ]);
    for (const text of ['autoscaling_policy.nope', 'deployed_models.nope', 'display_name.deeper', 'labels.env.deeper', 'autoscaling_policy.load_targets.qps.x']) {
      const error = invalid(() => parseFieldMask(text, top, 'updateMask'));
      expect(error.message).toContain('unknown field');
      expect(error.field).toBe('updateMask');
    }
    expect(invalid(() => parseFieldMask('autoscaling_policy.nope', top)).message).toContain('"autoscaling_policy.nope"');
  });

  it('rejects unknown top-level fields naming them, and malformed paths', () => {
    const error = invalid(() => parseFieldMask('display_name,colour', top));
    expect(error.message).toContain('"colour"');
    expect(error.field).toBe('readMask');
    expect(invalid(() => parseFieldMask('colour', top, 'updateMask')).field).toBe('updateMask');
    for (const text of ['a,,b', 'name,', 'name,*', 'name.', '.name', 'na me', 'name.x-y', '__proto__', 'constructor', 'labels.__proto__']) {
      invalid(() => parseFieldMask(text, top));
    }
  });
});

describe('applyReadMask', () => {
  it('returns the data itself without a mask (answers are read-only; no copy on the hot path)', () => {
    expect(applyReadMask(resource, undefined)).toBe(resource);
  });

  it('keeps only the masked paths, and always name', () => {
    expect(applyReadMask(resource, ['displayName'])).toEqual({ name: resource.name, displayName: 'D' });
    expect(applyReadMask(resource, [])).toEqual({ name: resource.name });
  });

  it('keeps nested subsets, through arrays', () => {
    expect(applyReadMask(resource, ['autoscalingPolicy.scaleUpWindow', 'autoscalingPolicy.loadTargets.qps'])).toEqual({
      name: resource.name,
      autoscalingPolicy: { scaleUpWindow: '30s', loadTargets: { qps: 1 } },
    });
    expect(applyReadMask(resource, ['deployedModels.state'])).toEqual({
      name: resource.name,
      deployedModels: [{ state: 'DEPLOYED' }, { state: 'DEPLOYING' }],
    });
  });

  it('keeps a whole parent when both it and a child are masked; skips missing paths', () => {
    expect(applyReadMask(resource, ['autoscalingPolicy.scaleUpWindow', 'autoscalingPolicy'])).toEqual({
      name: resource.name,
      autoscalingPolicy: resource.autoscalingPolicy,
    });
    expect(applyReadMask(resource, ['labels.missing', 'displayName.x', 'nothing'])).toEqual({ name: resource.name, labels: {} });
  });

  it('does not share structure with the input', () => {
    const masked = applyReadMask(resource, ['labels']);
    (masked.labels as JsonObject).env = 'changed';
    expect((resource.labels as JsonObject).env).toBe('prod');
  });
});

describe('applyUpdateMask', () => {
  it('without a mask, replaces every top-level key present in the patch', () => {
    const next = applyUpdateMask(resource, { displayName: 'E', autoscalingPolicy: { scaleUpWindow: '1s' } }, undefined);
    expect(next).toEqual({ ...resource, displayName: 'E', autoscalingPolicy: { scaleUpWindow: '1s' } });
    expect(resource.displayName).toBe('D');
  });

  it('with a mask, copies only masked paths; absent in the patch removes', () => {
    const patch = { displayName: 'E', state: 'FAILED', autoscalingPolicy: { scaleUpWindow: '5s', scaleDownWindow: '1s' } };
    expect(applyUpdateMask(resource, patch, ['displayName', 'autoscalingPolicy.scaleUpWindow'])).toEqual({
      ...resource,
      displayName: 'E',
      autoscalingPolicy: { scaleUpWindow: '5s', scaleDownWindow: '600s', loadTargets: { qps: 1 } },
    });
    const removed = applyUpdateMask(resource, {}, ['labels', 'autoscalingPolicy.loadTargets']);
    expect(removed).not.toHaveProperty('labels');
    expect(removed.autoscalingPolicy).toEqual({ scaleUpWindow: '30s', scaleDownWindow: '600s' });
    expect(applyUpdateMask(resource, {}, [])).toEqual(resource);
  });

  it('creates missing parents and ignores removals under missing parents', () => {
    expect(applyUpdateMask({ name: 'n' }, { a: { b: { c: 1 } } }, ['a.b.c'])).toEqual({ name: 'n', a: { b: { c: 1 } } });
    expect(applyUpdateMask({ name: 'n', a: 5 }, { a: { b: 2 } }, ['a.b'])).toEqual({ name: 'n', a: { b: 2 } });
    expect(applyUpdateMask({ name: 'n' }, {}, ['a.b.c'])).toEqual({ name: 'n' });
  });

  it('treats __proto__ keys as data', () => {
    const patch = JSON.parse('{"__proto__": {"polluted": true}}') as JsonObject;
    const next = applyUpdateMask({ name: 'n' }, patch, undefined);
    expect(Object.getPrototypeOf(next)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
