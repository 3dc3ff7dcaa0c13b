import { beforeAll, describe, expect, it } from 'vitest';
import type { FieldDeclarations } from '../../listing/fields.js';
import { evaluateFilter } from '../../listing/filter/evaluator.js';
import { parseFilter } from '../../listing/filter/parse-filter.js';
import { parseOrderBy, type OrderTerm } from '../../listing/order-by.js';
import { compareSortKeys, sortKeyOf } from '../../listing/sort-key.js';
import type { JsonObject, JsonValue } from '../../ports/json.js';
import type { ListQuery, StoredResource } from '../../ports/storage.js';
import { ctx, uid, type StorageGetter } from './support.js';

/** One declaration of every field type and shape the listing layer knows. */
export const contractDeclarations: FieldDeclarations = {
  name: { path: ['name'], type: 'string' },
  displayName: { path: ['displayName'], type: 'string' },
  state: { path: ['state'], type: 'enum', enumValues: ['STATE_UNSPECIFIED', 'CREATING', 'READY', 'FAILED'] },
  public: { path: ['public'], type: 'bool' },
  replicaCount: { path: ['replicaCount'], type: 'int' },
  score: { path: ['score'], type: 'double' },
  parameterCount: { path: ['parameterCount'], type: 'int64' },
  createTime: { path: ['createTime'], type: 'timestamp' },
  'autoscalingPolicy.scaleUpWindow': { path: ['autoscalingPolicy', 'scaleUpWindow'], type: 'duration' },
  tags: { path: ['tags'], type: 'string', repeated: true },
  labels: { path: ['labels'], type: 'string', map: true },
  baseModel: { path: ['baseModel'], type: 'string' },
};

/**
 * The listed fixture, by id. Chosen so that every comparison has hits and misses: absent and null
 * fields, values of the wrong type, equal sort values (so `name` must break ties), int64 where text
 * order and numeric order disagree ("9" < "10"), durations where they disagree ("90s" < "300s"),
 * and LIKE metacharacters in strings.
 */
function fixture(): Record<string, JsonObject> {
  return {
    m01: { displayName: 'Llama 3 8B', state: 'READY', public: true, replicaCount: 2, score: 0.5, parameterCount: '8000000000', createTime: '2024-01-01T00:00:00.000Z', autoscalingPolicy: { scaleUpWindow: '30s' }, tags: ['chat', 'small'], labels: { env: 'prod', team: 'x' }, baseModel: 'llama-3' },
    m02: { displayName: 'llama-3-70b', state: 'READY', public: false, replicaCount: 10, score: 1.25, parameterCount: '70000000000', createTime: '2024-02-01T00:00:00.000Z', autoscalingPolicy: { scaleUpWindow: '300s' }, tags: ['chat'], labels: { env: 'dev' }, baseModel: 'llama-3' },
    m03: { displayName: 'Mistral 7B', state: 'CREATING', public: true, replicaCount: 0, score: -3.75, parameterCount: '7000000000', createTime: '2024-02-01T00:00:00.000Z', autoscalingPolicy: { scaleUpWindow: '90s' }, tags: ['code'], labels: {} },
    m04: { displayName: 'mixtral_8x7b', state: 'FAILED', replicaCount: 1, score: 0.001, parameterCount: '9', createTime: '2024-03-01T12:00:00.000Z', autoscalingPolicy: { scaleUpWindow: '1.5s' }, tags: [], baseModel: 'mistral' },
    m05: { displayName: '100% Pure', state: 'READY', public: true, replicaCount: 2, parameterCount: '10', createTime: '2024-03-01T12:00:00.000Z', tags: ['a%b'], labels: { env: null } },
    m06: { displayName: 'Zephyr', public: false, replicaCount: -1, score: 2, parameterCount: 5, createTime: '2023-12-31T23:59:59.999Z', autoscalingPolicy: { scaleUpWindow: '0s' }, labels: { env: 'prod' }, baseModel: null },
    m07: { displayName: 'alpha', state: 'READY', replicaCount: 3, score: 0.5, parameterCount: '-3', autoscalingPolicy: { scaleUpWindow: 'bad' }, tags: ['chat', 'code'], labels: { team: 'y' } },
    m08: { displayName: 'Beta', state: 'CREATING', public: true, score: 1e-9, parameterCount: 'abc', createTime: '2024-05-05T05:05:05.005Z', autoscalingPolicy: {}, tags: 'chat', baseModel: 'zephyr' },
    m09: { displayName: '', state: 'READY', public: false, replicaCount: 2, score: 7, createTime: '2024-01-01T00:00:00.000Z', tags: ['small'], labels: { env: 'staging' }, baseModel: 'llama-3' },
    m10: { state: 'FAILED', public: true, replicaCount: 5, score: -1, parameterCount: '123456789012345678', createTime: '2024-04-01T00:00:00.000Z', autoscalingPolicy: { scaleUpWindow: '45.25s' }, tags: ['chat', null] },
    m11: { displayName: null, state: 'READY', public: 'yes', replicaCount: 'two', score: 3, parameterCount: 42, createTime: '2024-06-01T00:00:00.000Z', autoscalingPolicy: { scaleUpWindow: '3600s' }, labels: 'env' },
    m12: { displayName: 42, state: 'CREATING', public: false, replicaCount: 7, score: 0.5, createTime: '2024-06-01T00:00:00.000Z', autoscalingPolicy: { scaleUpWindow: '-5s' }, tags: ['big'], labels: { env: 'prod', region: 'eu' }, baseModel: 'Mistral' },
  };
}

/**
 * Filters covering every CheckedFilter kind (and, or, not, compare, has with and without value,
 * global) on every field type, with the ids they must select (worked out by hand from the fixture).
 */
const filterCases: readonly (readonly [string, readonly string[]])[] = [
  ['state = READY', ['m01', 'm02', 'm05', 'm07', 'm09', 'm11']],
  ['state != READY', ['m03', 'm04', 'm08', 'm10', 'm12']],
  ['NOT state = READY', ['m03', 'm04', 'm06', 'm08', 'm10', 'm12']],
  ['state:CREATING', ['m03', 'm08', 'm12']],
  ['display_name = "Zephyr"', ['m06']],
  ['display_name = "llama*"', ['m02']],
  ['display_name = "*B"', ['m01', 'm03']],
  ['display_name != "llama*"', ['m01', 'm03', 'm04', 'm05', 'm06', 'm07', 'm08', 'm09']],
  ['display_name = "100%*"', ['m05']],
  ['display_name = "mixtral_*"', ['m04']],
  ['display_name = "mixtral*8*"', ['m04']],
  ['display_name = "*"', ['m01', 'm02', 'm03', 'm04', 'm05', 'm06', 'm07', 'm08', 'm09']],
  ['display_name < "M"', ['m01', 'm05', 'm08', 'm09']],
  ['display_name >= "alpha"', ['m02', 'm04', 'm07']],
  ['display_name:*', ['m01', 'm02', 'm03', 'm04', 'm05', 'm06', 'm07', 'm08', 'm12']],
  ['display_name = null', ['m10', 'm11']],
  ['display_name != null', ['m01', 'm02', 'm03', 'm04', 'm05', 'm06', 'm07', 'm08', 'm09', 'm12']],
  ['public = true', ['m01', 'm03', 'm05', 'm08', 'm10']],
  ['public != true', ['m02', 'm06', 'm09', 'm12']],
  ['NOT public = true', ['m02', 'm04', 'm06', 'm07', 'm09', 'm11', 'm12']],
  ['replica_count > 1', ['m01', 'm02', 'm05', 'm07', 'm09', 'm10', 'm12']],
  ['replica_count <= 0', ['m03', 'm06']],
  ['replica_count = 2', ['m01', 'm05', 'm09']],
  ['replica_count != 2', ['m02', 'm03', 'm04', 'm06', 'm07', 'm10', 'm12']],
  ['replica_count:2', ['m01', 'm05', 'm09']],
  ['score < 1', ['m01', 'm03', 'm04', 'm07', 'm08', 'm10', 'm12']],
  ['score >= 0.5 AND score <= 2', ['m01', 'm02', 'm06', 'm07', 'm12']],
  ['score = 0.5', ['m01', 'm07', 'm12']],
  ['parameter_count > 8000000000', ['m02', 'm10']],
  ['parameter_count < 10', ['m04', 'm06', 'm07']],
  ['parameter_count >= 10', ['m01', 'm02', 'm03', 'm05', 'm10', 'm11']],
  ['parameter_count = 5', ['m06']],
  ['parameter_count = 123456789012345678', ['m10']],
  ['parameter_count = null', ['m09', 'm12']],
  ['parameter_count != null', ['m01', 'm02', 'm03', 'm04', 'm05', 'm06', 'm07', 'm08', 'm10', 'm11']],
  ['create_time > "2024-03-01T00:00:00Z"', ['m04', 'm05', 'm08', 'm10', 'm11', 'm12']],
  ['create_time <= "2024-03-01T14:00:00+02:00"', ['m01', 'm02', 'm03', 'm04', 'm05', 'm06', 'm09']],
  ['create_time = "2024-01-01T00:00:00Z"', ['m01', 'm09']],
  ['create_time < timestamp("2024-01-01T00:00:00.001Z")', ['m01', 'm06', 'm09']],
  ['create_time = null', ['m07']],
  ['autoscaling_policy.scale_up_window > "60s"', ['m02', 'm03', 'm11']],
  ['autoscaling_policy.scale_up_window <= 30s', ['m01', 'm04', 'm06', 'm12']],
  ['autoscaling_policy.scale_up_window = duration("45.25s")', ['m10']],
  ['autoscaling_policy.scale_up_window = null', ['m05', 'm08', 'm09']],
  ['tags:chat', ['m01', 'm02', 'm07', 'm10']],
  ['tags:"a%b"', ['m05']],
  ['tags:"sm*"', ['m01', 'm09']],
  ['tags:*', ['m01', 'm02', 'm03', 'm05', 'm07', 'm08', 'm09', 'm10', 'm12']],
  ['NOT tags:*', ['m04', 'm06', 'm11']],
  ['labels.env = "prod"', ['m01', 'm06', 'm12']],
  ['labels.env != "prod"', ['m02', 'm09']],
  ['labels.env = "*"', ['m01', 'm02', 'm06', 'm09', 'm12']],
  ['labels:env', ['m01', 'm02', 'm06', 'm09', 'm12']],
  ['NOT labels:env', ['m03', 'm04', 'm05', 'm07', 'm08', 'm10', 'm11']],
  ['labels.env:*', ['m01', 'm02', 'm06', 'm09', 'm12']],
  ['labels:*', ['m01', 'm02', 'm05', 'm06', 'm07', 'm09', 'm11', 'm12']],
  ['labels.team = "x" OR labels.region = "eu"', ['m01', 'm12']],
  ['base_model = null', ['m03', 'm05', 'm06', 'm07', 'm10', 'm11']],
  ['base_model != null', ['m01', 'm02', 'm04', 'm08', 'm09', 'm12']],
  ['base_model = "mistral"', ['m04']],
  ['state = READY AND public = true', ['m01', 'm05']],
  ['state = READY public = false', ['m02', 'm09']],
  ['state = FAILED OR replica_count > 6', ['m02', 'm04', 'm10', 'm12']],
  ['(state = CREATING OR public = false) AND NOT display_name = "Zephyr"', ['m02', 'm03', 'm08', 'm09', 'm12']],
  ['NOT (state = READY OR state = CREATING)', ['m04', 'm06', 'm10']],
  ['NOT (NOT public = true)', ['m01', 'm03', 'm05', 'm08', 'm10']],
  ['llama', ['m01', 'm02', 'm09']],
  ['"PURE"', ['m05']],
  ['"%"', ['m05']],
  ['mistral', ['m03', 'm04', 'm12']],
];

/** Orders covering every sortable type, both directions, nulls, ties and multi-key mixes. */
const orderCases: readonly string[] = [
  '',
  'create_time desc',
  'display_name',
  'display_name desc',
  'state, replica_count desc',
  'public desc, score',
  'public, score desc',
  'replica_count',
  'score desc',
  'parameter_count',
  'parameter_count desc',
  'autoscaling_policy.scale_up_window',
  'autoscaling_policy.scale_up_window desc',
  'base_model desc, create_time',
  'base_model, create_time desc',
  'name desc',
];

const DEFAULT_ORDER = 'create_time';

/** Listing: filters of every kind and type, orderings, keyset paging and totalSize. */
export function listingTests(storage: StorageGetter): void {
  describe('listing', () => {
    const parent = `accounts/${uid('l')}`;
    const collection = 'models';
    const byId = fixture();
    const stored: { id: string; name: string; data: JsonObject }[] = [];

    beforeAll(async () => {
      // A resource of the same collection under another parent, and one of another collection under
      // this parent: neither may ever show up.
      const outsider = `accounts/${uid('l')}/models/m01`;
      await storage().resources.create(ctx, outsider, { name: outsider, ...byId.m01 });
      const sibling = `${parent}/datasets/m01`;
      await storage().resources.create(ctx, sibling, { name: sibling, ...byId.m01 });
      for (const [id, body] of Object.entries(byId)) {
        const name = `${parent}/${collection}/${id}`;
        const data = { name, ...body };
        await storage().resources.create(ctx, name, data);
        stored.push({ id, name, data });
      }
    });

    const idOf = (item: StoredResource): string => item.name.slice(item.name.lastIndexOf('/') + 1);

    const listAll = async (query: Omit<ListQuery, 'parent' | 'collection' | 'pageSize'>): Promise<string[]> => {
      const result = await storage().resources.list(ctx, { parent, collection, pageSize: 100, ...query });
      expect(result.hasMore).toBe(false);
      expect(result.totalSize).toBe(result.items.length);
      return result.items.map(idOf);
    };

    const expectedOrder = (terms: readonly OrderTerm[], keep: (data: JsonObject) => boolean = () => true): string[] =>
      stored
        .filter((item) => keep(item.data))
        .map((item) => ({ id: item.id, key: sortKeyOf(item.data, terms) }))
        .sort((a, b) => compareSortKeys(a.key, b.key, terms))
        .map((item) => item.id);

    describe('filter', () => {
      const nameOrder = parseOrderBy('name', contractDeclarations, DEFAULT_ORDER);
      it.each(filterCases)('%s', async (text, expected) => {
        const filter = parseFilter(text, contractDeclarations);
        expect(filter).toBeDefined();
        if (filter === undefined) return;
        // The reference evaluator agrees with the hand-worked expectation…
        expect(stored.filter((item) => evaluateFilter(filter, item.data)).map((item) => item.id)).toEqual(expected);
        // …and so must the store.
        expect(await listAll({ filter, orderBy: nameOrder })).toEqual(expected);
      });

      it('filters on name', async () => {
        const filter = parseFilter(`name = "${parent}/${collection}/m03" OR name = "${parent}/${collection}/m1*"`, contractDeclarations);
        expect(await listAll({ filter, orderBy: nameOrder })).toEqual(['m03', 'm10', 'm11', 'm12']);
      });

      it('treats values as data, never as SQL or patterns', async () => {
        for (const text of [`display_name = "x' OR '1'='1"`, 'display_name = "%"', 'display_name = "_eta"', 'display_name = "\\\\"']) {
          const filter = parseFilter(text, contractDeclarations);
          expect(await listAll({ filter, orderBy: nameOrder })).toEqual([]);
        }
      });
    });

    describe('orderBy', () => {
      it.each(orderCases)('"%s"', async (text) => {
        const terms = parseOrderBy(text, contractDeclarations, DEFAULT_ORDER);
        expect(await listAll({ orderBy: terms })).toEqual(expectedOrder(terms));
      });

      it('puts null first ascending and last descending', async () => {
        const asc = await listAll({ orderBy: parseOrderBy('base_model', contractDeclarations, DEFAULT_ORDER) });
        expect(asc.slice(0, 6)).toEqual(['m03', 'm05', 'm06', 'm07', 'm10', 'm11']);
        expect(asc.slice(6)).toEqual(['m12', 'm01', 'm02', 'm09', 'm04', 'm08']);
        const desc = await listAll({ orderBy: parseOrderBy('base_model desc', contractDeclarations, DEFAULT_ORDER) });
        expect(desc).toEqual(['m08', 'm04', 'm01', 'm02', 'm09', 'm12', 'm03', 'm05', 'm06', 'm07', 'm10', 'm11']);
      });

      it('orders int64 and durations numerically, not as text', async () => {
        const ints = await listAll({ orderBy: parseOrderBy('parameter_count', contractDeclarations, DEFAULT_ORDER) });
        expect(ints).toEqual(['m08', 'm09', 'm12', 'm07', 'm06', 'm04', 'm05', 'm11', 'm03', 'm01', 'm02', 'm10']);
        const durations = await listAll({ orderBy: parseOrderBy('autoscaling_policy.scale_up_window', contractDeclarations, DEFAULT_ORDER) });
        expect(durations).toEqual(['m05', 'm07', 'm08', 'm09', 'm12', 'm06', 'm04', 'm01', 'm10', 'm03', 'm02', 'm11']);
      });
    });

    describe('paging', () => {
      const pagingFilter = 'NOT state = FAILED';
      const cases = orderCases.flatMap((order) => [
        [order, 1, ''],
        [order, 5, ''],
        [order, 4, pagingFilter],
      ] as const);

      it.each(cases)('orderBy "%s", pageSize %i, filter "%s": every item once, in order', async (order, pageSize, filterText) => {
        const orderBy = parseOrderBy(order, contractDeclarations, DEFAULT_ORDER);
        const filter = parseFilter(filterText, contractDeclarations);
        const expected = expectedOrder(orderBy, (data) => filter === undefined || evaluateFilter(filter, data));
        const seen: string[] = [];
        let after: JsonValue[] | undefined;
        for (let page = 0; page < 50; page++) {
          const result = await storage().resources.list(ctx, {
            parent,
            collection,
            orderBy,
            pageSize,
            ...(filter === undefined ? {} : { filter }),
            ...(after === undefined ? {} : { after }),
          });
          expect(result.totalSize).toBe(expected.length);
          expect(result.items.length).toBeLessThanOrEqual(pageSize);
          seen.push(...result.items.map(idOf));
          expect(result.hasMore).toBe(seen.length < expected.length);
          const last = result.items[result.items.length - 1];
          if (!result.hasMore || last === undefined) break;
          after = sortKeyOf(last.data, orderBy);
        }
        expect(seen).toEqual(expected);
      });

      it('returns an empty last page after a position past the end', async () => {
        const orderBy = parseOrderBy('', contractDeclarations, DEFAULT_ORDER);
        const all = await storage().resources.list(ctx, { parent, collection, orderBy, pageSize: 100 });
        const last = all.items[all.items.length - 1];
        expect(last).toBeDefined();
        if (last === undefined) return;
        const result = await storage().resources.list(ctx, { parent, collection, orderBy, pageSize: 10, after: sortKeyOf(last.data, orderBy) });
        expect(result.items).toEqual([]);
        expect(result.hasMore).toBe(false);
        expect(result.totalSize).toBe(12);
      });

      it('reports hasMore exactly when items remain', async () => {
        const orderBy = parseOrderBy('', contractDeclarations, DEFAULT_ORDER);
        const exact = await storage().resources.list(ctx, { parent, collection, orderBy, pageSize: 12 });
        expect(exact.items).toHaveLength(12);
        expect(exact.hasMore).toBe(false);
        const short = await storage().resources.list(ctx, { parent, collection, orderBy, pageSize: 11 });
        expect(short.items).toHaveLength(11);
        expect(short.hasMore).toBe(true);
        expect(short.totalSize).toBe(12);
      });
    });

    describe('filters after writes', () => {
      it('sees updates, deletes and rolled-back updates in equality and other filters', async () => {
        const parent2 = `accounts/${uid('acct')}`;
        const names = ['a', 'b', 'c'].map((id) => `${parent2}/${collection}/${id}`);
        for (const name of names) await storage().resources.create(ctx, name, { name, state: 'READY', baseModel: 'm1' });
        const orderBy = parseOrderBy('', contractDeclarations, DEFAULT_ORDER);
        const listed = async (text: string) =>
          (await storage().resources.list(ctx, { parent: parent2, collection, orderBy, pageSize: 50, filter: parseFilter(text, contractDeclarations)! })).items.map((i) => i.name);
        expect(await listed('state = READY')).toEqual(names);
        expect(await listed('baseModel = "m1" AND state = READY')).toEqual(names);
        const b = (await storage().resources.get(ctx, names[1]!))!;
        await storage().resources.update(ctx, names[1]!, { name: names[1]!, state: 'FAILED', baseModel: 'm2' }, b.etag);
        expect(await listed('state = READY')).toEqual([names[0], names[2]]);
        expect(await listed('state = FAILED')).toEqual([names[1]]);
        expect(await listed('baseModel = "m2" AND state = FAILED')).toEqual([names[1]]);
        expect(await listed('baseModel = "m1"')).toEqual([names[0], names[2]]);
        await storage().resources.delete(ctx, names[0]!);
        expect(await listed('state = READY')).toEqual([names[2]]);
        const c = (await storage().resources.get(ctx, names[2]!))!;
        await expect(
          storage().transaction(ctx, async (tx) => {
            await tx.resources.update(ctx, names[2]!, { name: names[2]!, state: 'CREATING', baseModel: 'm1' }, c.etag);
            throw new Error('roll back');
          }),
        ).rejects.toThrow('roll back');
        expect(await listed('state = READY')).toEqual([names[2]]);
        expect(await listed('state = CREATING')).toEqual([]);
      });
    });
  });
}
