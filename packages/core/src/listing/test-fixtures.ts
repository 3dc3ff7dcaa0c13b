/** Declarations and helpers shared by the listing tests (a deployment-like resource). */
import { expect } from 'vitest';
import { Code, GatewayError } from '../errors/index.js';
import type { FieldDeclarations } from './fields.js';

export const STATES = ['STATE_UNSPECIFIED', 'CREATING', 'READY', 'DELETING', 'FAILED', 'UPDATING', 'DELETED'] as const;
export const REGIONS = ['REGION_UNSPECIFIED', 'US_IOWA_1', 'EU_PARIS_1', 'AP_TOKYO_1'] as const;

export const declarations: FieldDeclarations = {
  name: { path: ['name'], type: 'string' },
  displayName: { path: ['displayName'], type: 'string' },
  description: { path: ['description'], type: 'string', sortable: false },
  baseModel: { path: ['baseModel'], type: 'string' },
  state: { path: ['state'], type: 'enum', enumValues: STATES },
  createTime: { path: ['createTime'], type: 'timestamp' },
  updateTime: { path: ['updateTime'], type: 'timestamp' },
  minReplicaCount: { path: ['minReplicaCount'], type: 'int' },
  temperature: { path: ['temperature'], type: 'double' },
  exampleCount: { path: ['exampleCount'], type: 'int64' },
  enableAddons: { path: ['enableAddons'], type: 'bool' },
  'autoscalingPolicy.scaleUpWindow': { path: ['autoscalingPolicy', 'scaleUpWindow'], type: 'duration' },
  tags: { path: ['tags'], type: 'string', repeated: true },
  'placement.regions': { path: ['placement', 'regions'], type: 'enum', repeated: true, enumValues: REGIONS },
  labels: { path: ['labels'], type: 'string', map: true },
};

/** Runs `fn` and returns the GatewayError it throws, asserting it is INVALID_ARGUMENT. */
export function invalid(fn: () => unknown): GatewayError {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(GatewayError);
  const error = caught as GatewayError;
  expect(error.code).toBe(Code.INVALID_ARGUMENT);
  return error;
}

/** Asserts a filter error at `position` whose message contains `fragment`. */
export function expectFilterError(fn: () => unknown, position: number, fragment?: string): void {
  const error = invalid(fn);
  expect(error.message).toContain(`at position ${position}:`);
  if (fragment !== undefined) expect(error.message).toContain(fragment);
}
