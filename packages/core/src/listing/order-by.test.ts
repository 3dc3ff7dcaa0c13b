import { describe, expect, it } from 'vitest';
import type { FieldDeclarations } from './fields.js';
import { parseOrderBy, type OrderTerm } from './order-by.js';
import { declarations, invalid } from './test-fixtures.js';

const show = (terms: OrderTerm[]): string[] => terms.map((t) => `${t.declaration.path.join('.')}${t.descending ? ' desc' : ''}`);
const order = (text: string | undefined, defaultOrder = 'create_time'): string[] => show(parseOrderBy(text, declarations, defaultOrder));

describe('parseOrderBy', () => {
  it('parses terms with directions, snake or camel, nested, and appends name', () => {
    expect(order('display_name, create_time desc, autoscaling_policy.scale_up_window')).toEqual([
      'displayName', 'createTime desc', 'autoscalingPolicy.scaleUpWindow', 'name',
    ]);
    expect(order('displayName ASC,createTime   DESC')).toEqual(['displayName', 'createTime desc', 'name']);
    expect(order('  state  ')).toEqual(['state', 'name']);
  });

  it('uses the default order for empty or blank text', () => {
    expect(order(undefined)).toEqual(['createTime', 'name']);
    expect(order('')).toEqual(['createTime', 'name']);
    expect(order('  ', 'create_time desc')).toEqual(['createTime desc', 'name']);
    expect(order(undefined, '')).toEqual(['name']);
  });

  it('does not append name when it is already a term, in either direction', () => {
    expect(order('name desc')).toEqual(['name desc']);
    expect(order('name, state')).toEqual(['name', 'state']);
  });

  it('synthesizes name when it is not declared', () => {
    const noName: FieldDeclarations = { state: { path: ['state'], type: 'enum' } };
    expect(show(parseOrderBy('state', noName, 'state'))).toEqual(['state', 'name']);
  });

  it('rejects unknown, repeated, map, non-sortable and duplicate fields, naming them', () => {
    const cases: Array<[string, string]> = [
      ['colour', 'unknown field "colour"'],
      ['state, tags', 'repeated field "tags"'],
      ['labels', 'map field "labels"'],
      ['labels.env', 'map field "labels.env"'],
      ['description', '"description" is not sortable'],
      ['state, create_time, createTime desc', '"createTime" appears more than once'],
      ['constructor', 'unknown field "constructor"'],
    ];
    for (const [text, fragment] of cases) {
      const error = invalid(() => parseOrderBy(text, declarations, 'create_time'));
      expect(error.message).toContain(fragment);
      expect(error.reason).toBe('INVALID_ORDER_BY');
    }
  });

  it('rejects malformed text', () => {
    for (const text of ['a,', ',a', 'state,,name', 'state sideways', 'state desc extra', 'state.', 'sta-te', '"state"', 'x'.repeat(3000)]) {
      invalid(() => parseOrderBy(text, declarations, 'create_time'));
    }
  });
});
