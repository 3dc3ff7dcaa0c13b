import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../contracts/json.js';
import { encodePageToken } from './page-token.js';
import { prepareListRequest, type ListRequestInput } from './list-request.js';
import { compareSortKeys, sortKeyOf } from './sort-key.js';
import { evaluateFilter } from './filter/evaluator.js';
import { declarations, invalid } from './test-fixtures.js';

const options = { scope: 'accounts/a/deployments', declarations, defaultOrder: 'create_time', secret: 's3cret' };
const prepare = (input: ListRequestInput) => prepareListRequest(input, options);

describe('prepareListRequest', () => {
  it('applies defaults', () => {
    const prepared = prepare({});
    expect(prepared.filter).toBeUndefined();
    expect(prepared.after).toBeUndefined();
    expect(prepared.pageSize).toBe(50);
    expect(prepared.orderBy.map((t) => t.declaration.path.join('.'))).toEqual(['createTime', 'name']);
  });

  it('clamps and validates pageSize', () => {
    expect(prepare({ pageSize: 0 }).pageSize).toBe(50);
    expect(prepare({ pageSize: 7 }).pageSize).toBe(7);
    expect(prepare({ pageSize: 200 }).pageSize).toBe(200);
    expect(prepare({ pageSize: 201 }).pageSize).toBe(200);
    expect(prepareListRequest({}, { ...options, defaultPageSize: 10, maxPageSize: 20 }).pageSize).toBe(10);
    expect(prepareListRequest({ pageSize: 99 }, { ...options, defaultPageSize: 10, maxPageSize: 20 }).pageSize).toBe(20);
    for (const pageSize of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(invalid(() => prepare({ pageSize })).field).toBe('pageSize');
    }
  });

  it('parses the filter and orderBy', () => {
    const prepared = prepare({ filter: 'state = READY', orderBy: 'display_name desc' });
    expect(prepared.filter).toMatchObject({ kind: 'compare', operator: '=' });
    expect(prepared.orderBy.map((t) => [t.declaration.path[0], t.descending])).toEqual([['displayName', true], ['name', false]]);
    expect(prepare({ filter: '  ' }).filter).toBeUndefined();
    invalid(() => prepare({ filter: 'nope = 1' }));
    invalid(() => prepare({ orderBy: 'nope' }));
  });

  it('pages through a data set with keyset positions', () => {
    const items: JsonObject[] = Array.from({ length: 23 }, (_, i) => ({
      name: `accounts/a/deployments/d${String(i).padStart(2, '0')}`,
      state: i % 3 === 0 ? 'FAILED' : 'READY',
      ...(i % 4 === 0 ? {} : { createTime: `2024-05-${String(1 + (i % 5)).padStart(2, '0')}T00:00:00Z` }),
    }));
    const input: ListRequestInput = { filter: 'state = READY', orderBy: 'create_time desc', pageSize: 4, otherParams: { showDeleted: 'true' } };
    const seen: string[] = [];
    let token: string | undefined;
    for (let pages = 0; pages < 20; pages++) {
      const prepared = prepare({ ...input, pageToken: token });
      const { filter, orderBy, after } = prepared;
      const matching = items
        .filter((item) => !filter || evaluateFilter(filter, item))
        .map((item) => ({ item, key: sortKeyOf(item, orderBy) }))
        .sort((a, b) => compareSortKeys(a.key, b.key, orderBy))
        .filter(({ key }) => !after || compareSortKeys(key, after, orderBy) > 0);
      const page = matching.slice(0, prepared.pageSize);
      seen.push(...page.map(({ item }) => item.name as string));
      const last = page.at(-1);
      if (matching.length <= prepared.pageSize || !last) break;
      token = prepared.nextPageToken(last.item);
    }
    const expected = items.filter((item) => item.state === 'READY');
    expect(seen).toHaveLength(expected.length);
    expect(new Set(seen).size).toBe(expected.length);
    // createTime desc puts items without createTime (null) last.
    expect(seen.slice(-expected.filter((item) => !item.createTime).length).every((name) => !items.find((i) => i.name === name)?.createTime)).toBe(true);
  });

  it('binds the token to filter, orderBy and the other parameters, but not pageSize', () => {
    const base: ListRequestInput = { filter: 'state = READY', orderBy: 'display_name', pageSize: 5, otherParams: { readMask: 'name', showDeleted: undefined } };
    const token = prepare(base).nextPageToken({ name: 'accounts/a/deployments/x', displayName: 'X' });
    expect(prepare({ ...base, pageToken: token }).after).toEqual(['X', 'accounts/a/deployments/x']);
    expect(prepare({ ...base, pageSize: 50, pageToken: token }).after).toEqual(['X', 'accounts/a/deployments/x']);
    for (const changed of [
      { filter: 'state = FAILED' },
      { filter: undefined },
      { orderBy: 'display_name desc' },
      { otherParams: { readMask: 'name,state' } },
      { otherParams: { readMask: 'name', showDeleted: 'true' } },
    ]) {
      expect(invalid(() => prepare({ ...base, ...changed, pageToken: token })).message).toContain('does not match');
    }
    // otherParams cannot impersonate filter or orderBy.
    const sneaky = prepare({ otherParams: { filter: 'x' } }).nextPageToken({ name: 'n' });
    invalid(() => prepare({ filter: 'x', pageToken: sneaky }));
  });

  it('binds the token to the scope: another collection or account refuses it', () => {
    const token = prepare({ pageSize: 1 }).nextPageToken({ name: 'accounts/a/deployments/x', createTime: '2024-01-01T00:00:00Z' });
    expect(prepare({ pageToken: token }).after).toHaveLength(2);
    for (const scope of ['accounts/a/models', 'accounts/b/deployments']) {
      expect(invalid(() => prepareListRequest({ pageToken: token }, { ...options, scope })).message).toContain('does not match');
    }
  });

  it('rejects a validly signed position that does not fit the order', () => {
    const params = { scope: options.scope, filter: undefined, orderBy: 'display_name' };
    const wrongLength = encodePageToken(['only one'], params, options.secret);
    expect(invalid(() => prepare({ orderBy: 'display_name', pageToken: wrongLength })).message).toBe('invalid page token');
    const wrongType = encodePageToken([5, 'n'], params, options.secret);
    expect(invalid(() => prepare({ orderBy: 'display_name', pageToken: wrongType })).message).toBe('invalid page token');
    invalid(() => prepare({ pageToken: 'garbage' }));
  });
});
