import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../contracts/json.js';
import { declarations } from '../test-fixtures.js';
import { evaluateFilter } from './evaluator.js';
import { parseFilter } from './parse-filter.js';

const full: JsonObject = {
  name: 'accounts/a/deployments/d1',
  displayName: 'Llama Three Prod',
  description: 'serves the chat',
  baseModel: 'accounts/fw/models/llama-v3-8b',
  state: 'READY',
  createTime: '2024-05-01T12:00:00Z',
  updateTime: '2024-05-02T12:00:00.500+02:00',
  minReplicaCount: 2,
  temperature: 0.5,
  exampleCount: '1234567890123456789',
  enableAddons: false,
  autoscalingPolicy: { scaleUpWindow: '30s' },
  tags: ['gpu', 'h100'],
  placement: { regions: ['US_IOWA_1', 'EU_PARIS_1'] },
  labels: { env: 'prod', empty: '', nothing: null },
};
const bare: JsonObject = { name: 'accounts/a/deployments/d2' };

const matches = (text: string, data: JsonObject = full): boolean => {
  const filter = parseFilter(text, declarations);
  if (!filter) throw new Error('empty filter');
  return evaluateFilter(filter, data);
};

describe('evaluateFilter', () => {
  it('strings: equality, ordering by code units, case-sensitive', () => {
    expect(matches('display_name = "Llama Three Prod"')).toBe(true);
    expect(matches('display_name = "llama three prod"')).toBe(false);
    expect(matches('display_name != "x"')).toBe(true);
    expect(matches('display_name > "L"')).toBe(true);
    expect(matches('display_name < "a"')).toBe(true); // 'L' < 'a' in code-unit order
    expect(matches('display_name >= "Llama Three Prod" display_name <= "Llama Three Prod"')).toBe(true);
  });

  it('wildcards match any sequence over the whole value, case-sensitively', () => {
    expect(matches('display_name = "Llama*"')).toBe(true);
    expect(matches('display_name = "*Prod"')).toBe(true);
    expect(matches('display_name = "*Three*"')).toBe(true);
    expect(matches('display_name = "L*a*P*d"')).toBe(true);
    expect(matches('display_name = "Three*"')).toBe(false);
    expect(matches('display_name = "llama*"')).toBe(false);
    expect(matches('display_name = "*"')).toBe(true);
    expect(matches('display_name != "Llama*"')).toBe(false);
    expect(matches('display_name != "Mistral*"')).toBe(true);
    expect(matches('display_name:"*Three*"')).toBe(true);
    expect(matches('display_name < "M*"')).toBe(true); // literal '*' in an ordering
  });

  it('enums and booleans', () => {
    expect(matches('state = READY')).toBe(true);
    expect(matches('state != READY')).toBe(false);
    expect(matches('state = FAILED OR state = READY')).toBe(true);
    expect(matches('enable_addons = false')).toBe(true);
    expect(matches('enable_addons != false')).toBe(false);
    expect(matches('enable_addons = true')).toBe(false);
  });

  it('numbers', () => {
    expect(matches('min_replica_count = 2')).toBe(true);
    expect(matches('min_replica_count > 1.5')).toBe(true);
    expect(matches('min_replica_count >= 3')).toBe(false);
    expect(matches('temperature < 0.6 temperature > -1')).toBe(true);
  });

  it('int64 compares numerically beyond 2^53', () => {
    expect(matches('example_count = 1234567890123456789')).toBe(true);
    expect(matches('example_count > 1234567890123456788')).toBe(true);
    expect(matches('example_count < 1234567890123456790')).toBe(true);
    expect(matches('example_count > 999')).toBe(true); // numeric, not lexicographic
    expect(matches('example_count > 2', { ...bare, exampleCount: '10' })).toBe(true);
    expect(matches('example_count = 10', { ...bare, exampleCount: 10 })).toBe(true);
  });

  it('timestamps compare by instant across offsets and precisions', () => {
    expect(matches('create_time = "2024-05-01T14:00:00+02:00"')).toBe(true);
    expect(matches('create_time > "2024-05-01T11:59:59.999Z"')).toBe(true);
    expect(matches('create_time < timestamp("2024-05-01T12:00:00.001Z")')).toBe(true);
    expect(matches('update_time = "2024-05-02T10:00:00.5Z"')).toBe(true);
    expect(matches('create_time > "2024-05-01T12:00:00Z"', { ...bare, createTime: 'not a time' })).toBe(false);
  });

  it('durations compare by seconds', () => {
    expect(matches('autoscaling_policy.scale_up_window = 30s')).toBe(true);
    expect(matches('autoscaling_policy.scale_up_window = "30.000s"')).toBe(true);
    expect(matches('autoscaling_policy.scale_up_window > 29.5s')).toBe(true);
    expect(matches('autoscaling_policy.scale_up_window < duration("1800s")')).toBe(true);
    expect(matches('autoscaling_policy.scale_up_window > 100s', { ...bare, autoscalingPolicy: { scaleUpWindow: '1800s' } })).toBe(true);
  });

  it('repeated fields: membership with :, presence with :*', () => {
    expect(matches('tags:gpu')).toBe(true);
    expect(matches('tags:cpu')).toBe(false);
    expect(matches('tags:"h*"')).toBe(true);
    expect(matches('placement.regions:EU_PARIS_1')).toBe(true);
    expect(matches('placement.regions:AP_TOKYO_1')).toBe(false);
    expect(matches('tags:*')).toBe(true);
    expect(matches('tags:*', { ...bare, tags: [] })).toBe(false);
    expect(matches('tags:*', bare)).toBe(false);
    expect(matches('tags:gpu', { ...bare, tags: 'gpu' })).toBe(false);
  });

  it('map fields: entries and keys', () => {
    expect(matches('labels.env = prod')).toBe(true);
    expect(matches('labels.env = "p*"')).toBe(true);
    expect(matches('labels.env != prod')).toBe(false);
    expect(matches('labels:env')).toBe(true);
    expect(matches('labels:team')).toBe(false);
    expect(matches('labels:nothing')).toBe(false); // key with null value is absent
    expect(matches('labels:empty')).toBe(true);
    expect(matches('labels.empty:*')).toBe(false); // present but empty
    expect(matches('labels.env:*')).toBe(true);
    expect(matches('labels.env:prod')).toBe(true);
    expect(matches('labels:*')).toBe(true);
    expect(matches('labels:*', { ...bare, labels: {} })).toBe(false);
    expect(matches('labels.team = null')).toBe(true);
    expect(matches('labels.nothing = null')).toBe(true);
    expect(matches('labels:constructor')).toBe(false);
    expect(matches('labels.toString = null')).toBe(true);
  });

  it('presence on scalars', () => {
    expect(matches('display_name:*')).toBe(true);
    expect(matches('display_name:*', { ...bare, displayName: '' })).toBe(false);
    expect(matches('min_replica_count:*', { ...bare, minReplicaCount: 0 })).toBe(true);
    expect(matches('min_replica_count:*', bare)).toBe(false);
  });

  describe('absent fields (missing or null)', () => {
    const nullDisplay: JsonObject = { ...bare, displayName: null };
    it('= null is true exactly when absent, != null when present', () => {
      for (const data of [bare, nullDisplay]) {
        expect(matches('display_name = null', data)).toBe(true);
        expect(matches('display_name != null', data)).toBe(false);
      }
      expect(matches('display_name = null')).toBe(false);
      expect(matches('display_name != null')).toBe(true);
      expect(matches('display_name = null', { ...bare, displayName: '' })).toBe(false);
      expect(matches('autoscaling_policy.scale_up_window = null', { ...bare, autoscalingPolicy: null })).toBe(true);
      expect(matches('tags = null', bare)).toBe(true);
    });

    it('every comparison with a value is false, including !=', () => {
      for (const data of [bare, nullDisplay]) {
        for (const op of ['=', '!=', '<', '<=', '>', '>=', ':']) expect(matches(`display_name ${op} "x"`, data)).toBe(false);
        expect(matches('display_name != "*"', data)).toBe(false);
      }
      for (const text of ['state != READY', 'min_replica_count != 1', 'example_count != 1', 'create_time != "2024-01-01T00:00:00Z"', 'enable_addons != true', 'autoscaling_policy.scale_up_window != 1s']) {
        expect(matches(text, bare)).toBe(false);
      }
    });

    it('NOT is plain negation of the two-valued leaf', () => {
      expect(matches('NOT display_name = "x"', bare)).toBe(true);
      expect(matches('-display_name != "x"', bare)).toBe(true);
      expect(matches('NOT (display_name = "x" OR state = READY)', bare)).toBe(true);
    });

    it('values of the wrong type behave as absent for comparisons but are present for null tests', () => {
      const wrong: JsonObject = { ...bare, displayName: 42, minReplicaCount: '2', state: true };
      expect(matches('display_name = "42"', wrong)).toBe(false);
      expect(matches('display_name != "42"', wrong)).toBe(false);
      expect(matches('display_name = null', wrong)).toBe(false);
      expect(matches('min_replica_count = 2', wrong)).toBe(false);
      expect(matches('state != READY', wrong)).toBe(false);
    });
  });

  it('global restrictions: case-insensitive substring of any declared string field', () => {
    expect(matches('llama')).toBe(true);
    expect(matches('THREE')).toBe(true);
    expect(matches('"three prod"')).toBe(true);
    expect(matches('chat')).toBe(true); // description
    expect(matches('llama-v3')).toBe(true); // baseModel
    expect(matches('gpu')).toBe(false); // tags are repeated: not searched
    expect(matches('prod llama')).toBe(true);
    expect(matches('prod mistral')).toBe(false);
    expect(matches('mistral OR llama')).toBe(true);
    expect(matches('-mistral')).toBe(true);
    expect(matches('READY')).toBe(false); // enums are not searched
  });

  it('combines AND, OR, NOT and sequences', () => {
    expect(matches('state = READY AND (min_replica_count > 5 OR tags:gpu)')).toBe(true);
    expect(matches('state = READY AND NOT tags:gpu')).toBe(false);
    expect(matches('state = FAILED OR min_replica_count = 2 AND enable_addons = false')).toBe(true);
    expect(matches('state = FAILED OR min_replica_count = 3 enable_addons = false')).toBe(false);
  });

  it('never follows prototype properties', () => {
    const data = JSON.parse('{"name":"n","__proto__":{"displayName":"evil"}}') as JsonObject;
    expect(matches('display_name = evil', data)).toBe(false);
    expect(matches('display_name = null', data)).toBe(true);
  });
});
