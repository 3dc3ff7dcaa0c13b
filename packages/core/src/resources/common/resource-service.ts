import { Code, aborted, alreadyExists, invalidArgument, isGatewayError, notFound } from '../../errors/index.js';
import type { RequestContext } from '../../kernel/request-context.js';
import { applyReadMask, applyUpdateMask, parseFieldMask, parseFilter, parseFilterCached, prepareListRequest, type CheckedFilter } from '../../listing/index.js';
import { assertValidId, formatResourceName, parseResourceName } from '../../names/resource-name.js';
import type { JsonObject } from '../../ports/json.js';
import type { StoredResource } from '../../ports/storage.js';
import { authorize, type Permission, type Verb } from '../../auth/permissions.js';
import { compileInputValidator, type InputValidator, type JsonSchema } from '../../validation/schema-validator.js';
import { getPath } from '../../validation/paths.js';
import type { ResourceDefinition } from './resource-definition.js';
import { storedOf, type ResourceEnvironment, type StoredResourceOf } from './resource-environment.js';
import type { StoredFields } from './schema-type.js';
import type { GatewaySecrets } from './secrets.js';
import { registerImmutableView } from './serialized-views.js';

export interface CreateOptions {
  /** The new resource's id; generated when absent. */
  readonly id?: string;
  /** Validate and answer what would be created, without storing it. */
  readonly validateOnly?: boolean;
  /** Resource-specific create flags (e.g. deployments' `skipShapeValidation`). */
  readonly flags?: Readonly<Record<string, boolean>>;
}

export interface ListParams {
  readonly filter?: string;
  readonly orderBy?: string;
  readonly pageSize?: number;
  readonly pageToken?: string;
  readonly readMask?: string;
}

/** A page of a list: resources of type `T` (masked by the call's readMask). */
export interface ListPage<T extends JsonObject = JsonObject> {
  readonly items: T[];
  readonly nextPageToken?: string;
  readonly totalSize: number;
}

/** Extra list behaviour a specific resource adds (e.g. deployments hide DELETED unless showDeleted). */
export interface ListExtras {
  /** An extra AIP-160 clause ANDed with the caller's filter (parsed on its own, so caller errors keep their positions). */
  readonly extraFilter?: string;
  /** The extra clause's text changes from call to call (e.g. it carries the time): parse it without remembering it. */
  readonly extraFilterVaries?: boolean;
  /** Parameters that must stay equal across pages (bound into the page token). */
  readonly boundParams?: Record<string, string | undefined>;
}

/** AIP-154 preconditions of a write. */
export interface PreconditionOptions {
  /**
   * The etag the caller last read (`If-Match`, or the body's `etag`): the write applies only while it is
   * still current, else ABORTED. Absent or `*`: no precondition (last writer wins).
   */
  readonly etag?: string;
}

/** The etag a write must match: `undefined` when there is no precondition. */
export function preconditionEtag(etag: string | undefined): string | undefined {
  return etag === undefined || etag === '' || etag === '*' ? undefined : etag;
}

export function etagMismatch(name: string, etag: string): Error {
  return aborted(`${name} has changed since it was read: etag "${etag}" is not current; read it again`, { reason: 'ETAG_MISMATCH' });
}

/** Fields every resource answer carries but no client may write (AIP-154 `etag`). */
const commonOutputOnly = ['etag'] as const;

/**
 * The caller's filter AND a server-added clause, as one flat AND: storage sees the caller's top-level
 * clauses directly (the memory store's equality index looks only there).
 */
function allOf(...filters: Array<CheckedFilter | undefined>): CheckedFilter | undefined {
  const operands = filters.flatMap((f) => (f === undefined ? [] : f.kind === 'and' ? [...f.operands] : [f]));
  if (operands.length <= 1) return operands[0];
  return { kind: 'and', operands };
}

/**
 * A copy of `schema` without `required` lists (nested ones too; top-level too when `nested` is false).
 * A PATCH with an update mask carries only the masked parts of nested objects (AIP-134), so its body is
 * checked without them; the merged result is checked with them.
 */
function withoutRequired(schema: JsonSchema, nested: boolean): JsonSchema {
  const visit = (node: unknown, depth: number): unknown => {
    if (Array.isArray(node)) return node.map((item) => visit(item, depth + 1));
    if (node === null || typeof node !== 'object') return node;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
      if (key === 'required' && Array.isArray(value) && (nested || depth === 0)) continue;
      out[key] = key === 'enum' || key === 'const' ? value : visit(value, depth + 1);
    }
    return out;
  };
  return visit(schema, 0) as JsonSchema;
}

/**
 * Create, get, list, update and delete for one resource kind, driven by its `ResourceDefinition`.
 * Resource-specific services compose it (see `crudService`) and add their own operations.
 *
 * `T` is the resource's type. This is where bodies cross from JSON to `T` and back: a client body
 * becomes a `T` once it passed the schema, a stored body is a `T` because only this service wrote it
 * (after the same checks), and a `T` is stored as the JSON object it is.
 */
export class ResourceService<T extends JsonObject = JsonObject> {
  private readonly validateInput: InputValidator;
  /** Body of a PATCH with an update mask: no `required` anywhere. */
  private readonly validateMaskedPatch: InputValidator;
  /** The masked top-level fields of a merged PATCH result: nested `required` apply again. */
  private readonly validateMerged: InputValidator;
  /** Each top-level field's position in the schema (answers list fields in this order). */
  private readonly fieldPositions: ReadonlyMap<string, number>;
  /** `<collection>.<verb>` for each verb, built once (authorization runs on every call). */
  private readonly permissions: Readonly<Record<Verb, Permission>>;

  /** The definition's output-only fields plus the ones every resource has (`etag`). */
  private readonly outputOnly: readonly string[];
  /** Frozen stored bodies with their etag, by stored body (see `withEtag`); entries go with the bodies. */
  private readonly etagViews = new WeakMap<JsonObject, T>();

  constructor(
    readonly definition: ResourceDefinition<T>,
    /** What rules use (storage, clock, ids); also what services built on this engine use. */
    readonly env: ResourceEnvironment,
    private readonly secrets: GatewaySecrets,
  ) {
    const outputOnly = [...definition.outputOnly, ...commonOutputOnly];
    this.outputOnly = outputOnly;
    this.validateInput = compileInputValidator(definition.schema, outputOnly, definition.singular);
    this.validateMaskedPatch = compileInputValidator(withoutRequired(definition.schema, true), outputOnly, definition.singular);
    this.validateMerged = compileInputValidator(withoutRequired(definition.schema, false), outputOnly, definition.singular);
    this.fieldPositions = new Map(Object.keys((definition.schema as { properties: object }).properties).map((field, i) => [field, i]));
    const { collection } = definition;
    this.permissions = {
      get: `${collection}.get`, list: `${collection}.list`, create: `${collection}.create`,
      update: `${collection}.update`, delete: `${collection}.delete`, action: `${collection}.action`,
    };
  }

  /** Parses and checks a name of this collection; authorizes the permission on its account. */
  authorizeName(ctx: RequestContext, name: string, verb: 'get' | 'update' | 'delete' | 'action'): { accountId: string; id: string } {
    const parsed = parseResourceName(name, this.definition.collection);
    authorize(ctx, this.permissions[verb], { accountId: parsed.accountId });
    return parsed;
  }

  nameOf(accountId: string, id: string): string {
    return formatResourceName(accountId, this.definition.collection, id);
  }

  /**
   * Validates a client body (strict schema, output-only fields dropped): the fields of a `T` a client
   * may set, without the ones every stored resource has (name, createTime, updateTime).
   */
  validate(body: unknown): Omit<T, StoredFields> {
    return this.validateInput(body) as Omit<T, StoredFields>;
  }

  async create(ctx: RequestContext, accountId: string, body: unknown, options: CreateOptions = {}): Promise<T> {
    assertValidId(accountId, 'account_id');
    authorize(ctx, this.permissions.create, { accountId });
    const data = this.validate(body ?? {});
    const id = options.id === undefined || options.id === '' ? this.env.ids.resourceId() : assertValidId(options.id, `${this.definition.singular}Id`);
    const name = this.nameOf(accountId, id);
    const now = this.env.nowIso();
    const record: JsonObject = { name, ...data, createTime: now, updateTime: now };
    if (this.definition.stateMachine) record.state = this.definition.stateMachine.initial;
    await this.definition.prepareCreate?.(ctx, this.typed(record), this.env, options);
    const ordered = this.ordered(this.typed(record));
    if (options.validateOnly) {
      if (await this.env.storage.resources.get(ctx, name)) throw alreadyExists(name);
      return this.present(ordered);
    }
    const stored = await this.env.storage.resources.create(ctx, name, ordered);
    return this.view(stored);
  }

  /** Stores a fully prepared record (used by services that build resources themselves). */
  async insert(ctx: RequestContext, record: T): Promise<T> {
    const stored = await this.env.storage.resources.create(ctx, String(record.name), this.toStore(record));
    return this.view(stored);
  }

  /** The stored resource (NOT_FOUND when absent), without authorization: the caller authorized. */
  async getStored(ctx: RequestContext, name: string): Promise<StoredResourceOf<T>> {
    const found = await this.env.storage.resources.get(ctx, name);
    if (!found) throw notFound(name);
    return storedOf<T>(found);
  }

  /**
   * The resource, as callers see it. With a read mask only the masked fields are present (`name`
   * always), nested required fields included.
   */
  async get(ctx: RequestContext, name: string, readMask?: string): Promise<T> {
    this.authorizeName(ctx, name, 'get');
    const mask = parseFieldMask(readMask, this.definition.schema);
    const found = await this.getStored(ctx, name);
    return this.masked(this.view(found), mask);
  }

  /** Applies a read mask to data the caller already loaded. */
  mask(data: T, readMask?: string): T {
    return this.masked(this.present(data), parseFieldMask(readMask, this.definition.schema));
  }

  async list(ctx: RequestContext, accountId: string, params: ListParams, extras: ListExtras = {}): Promise<ListPage<T>> {
    assertValidId(accountId, 'account_id');
    authorize(ctx, this.permissions.list, { accountId });
    const mask = parseFieldMask(params.readMask, this.definition.schema);
    const prepared = prepareListRequest(
      {
        filter: params.filter,
        orderBy: params.orderBy,
        pageSize: params.pageSize,
        pageToken: params.pageToken,
        otherParams: { readMask: params.readMask, ...extras.boundParams },
      },
      { scope: `accounts/${accountId}/${this.definition.collection}`, declarations: this.definition.fields, defaultOrder: this.definition.defaultOrder, secret: this.secrets.pageTokenSecret },
    );
    const parseExtra = extras.extraFilterVaries ? parseFilter : parseFilterCached;
    const filter = allOf(prepared.filter, extras.extraFilter ? parseExtra(extras.extraFilter, this.definition.fields) : undefined);
    const result = await this.env.storage.resources.list(ctx, {
      parent: `accounts/${accountId}`,
      collection: this.definition.collection,
      ...(filter ? { filter } : {}),
      orderBy: prepared.orderBy,
      pageSize: prepared.pageSize,
      ...(prepared.after ? { after: prepared.after } : {}),
    });
    const last = result.items[result.items.length - 1];
    return {
      items: result.items.map((item) => this.masked(this.view(item), mask)),
      ...(result.hasMore && last ? { nextPageToken: prepared.nextPageToken(last.data) } : {}),
      totalSize: result.totalSize,
    };
  }

  /**
   * PATCH: with an update mask only the masked paths change; without one every mutable field present in
   * the body is replaced. A `name` in the body must equal the path's name. Immutable fields may not
   * change. With an etag (the body's `etag` or `options.etag`; both must match when both are given) the
   * update applies only while it is current, else ABORTED; without one, concurrent updates apply one
   * after another (see {@link mutate}).
   */
  async update(ctx: RequestContext, name: string, body: unknown, updateMask?: string, options: PreconditionOptions = {}): Promise<T> {
    this.authorizeName(ctx, name, 'update');
    let bodyEtag: string | undefined;
    if (body !== null && typeof body === 'object' && !Array.isArray(body)) {
      if ('name' in body) {
        const bodyName = (body as { name: unknown }).name;
        if (bodyName !== name) throw invalidArgument(`body name "${String(bodyName)}" must equal the resource name "${name}"`, { field: 'name' });
      }
      const given = (body as { etag?: unknown }).etag;
      if (given !== undefined && typeof given !== 'string') throw invalidArgument('etag must be a string', { field: 'etag' });
      bodyEtag = preconditionEtag(given);
    }
    const optionEtag = preconditionEtag(options.etag);
    if (bodyEtag !== undefined && optionEtag !== undefined && bodyEtag !== optionEtag) throw etagMismatch(name, optionEtag);
    const etag = bodyEtag ?? optionEtag;
    const outputOnly = new Set(this.outputOnly);
    const paths = parseFieldMask(updateMask, this.definition.schema, 'updateMask')?.filter((p) => !outputOnly.has(p) && p !== 'name');
    const patch = paths === undefined ? this.validate(body ?? {}) : this.validateMaskedPatch(body ?? {});
    return this.mutate(ctx, name, async (previous, txCtx) => {
      const next: JsonObject = applyUpdateMask(previous, patch, paths);
      if (paths !== undefined) {
        // Nested objects touched by the mask must be complete once merged (e.g. peftDetails.baseModel).
        const touched: JsonObject = {};
        for (const top of new Set(paths.map((p) => p.split('.')[0]!))) if (next[top] !== undefined) touched[top] = next[top]!;
        this.validateMerged(touched);
      }
      for (const path of this.definition.immutable) {
        const segments = path.split('.');
        if (JSON.stringify(getPath(next, segments)) !== JSON.stringify(getPath(previous, segments))) {
          throw invalidArgument(`field "${path}" cannot be changed after creation`, { field: path, reason: 'IMMUTABLE_FIELD' });
        }
      }
      for (const path of this.definition.outputOnly) {
        const [top] = path.split('.');
        if (top !== undefined && !path.includes('.') && previous[top] !== undefined) next[top] = previous[top];
      }
      next.name = name;
      const merged = this.typed(next);
      await this.definition.prepareUpdate?.(txCtx, merged, previous, this.env);
      return merged;
    }, etag === undefined ? {} : { etag });
  }

  /**
   * Applies `change` to the stored resource in one storage transaction that reads it with
   * `getForUpdate`: concurrent mutations of one resource run one after another, each on the result of
   * the previous (no lost update, no retry, no spurious ABORTED). With `options.etag` the change applies
   * only while that etag is current (ABORTED otherwise). `change` returns the new body (updateTime is
   * set here). `change` gets the context bound to the transaction: what it reads through the
   * environment's storage with that context joins the transaction. With a `ctx` already bound to an
   * open transaction (see {@link TransactionScopedStorage}), the mutation joins it.
   */
  async mutate(
    ctx: RequestContext,
    name: string,
    change: (previous: T, txCtx: RequestContext) => Promise<T> | T,
    options: PreconditionOptions = {},
  ): Promise<T> {
    const expected = preconditionEtag(options.etag);
    return this.env.storage.transaction(ctx, async (tx, txCtx) => {
      const current = await tx.resources.getForUpdate(txCtx, name);
      if (!current) throw notFound(name);
      if (expected !== undefined && expected !== current.etag) throw etagMismatch(name, expected);
      const next = await change(this.typed(structuredClone(current.data)), txCtx);
      const record: JsonObject = next;
      record.updateTime = this.env.nowIso();
      return this.view(await tx.resources.update(txCtx, name, this.toStore(next), current.etag));
    });
  }

  /** Deletes the resource; with `options.etag` only while it is current (ABORTED otherwise). */
  async delete(ctx: RequestContext, name: string, options: PreconditionOptions = {}): Promise<void> {
    this.authorizeName(ctx, name, 'delete');
    await this.remove(ctx, name, options);
  }

  /** Removes without authorization (the caller authorized). NOT_FOUND when absent; ABORTED on a stale etag. */
  async remove(ctx: RequestContext, name: string, options: PreconditionOptions = {}): Promise<void> {
    try {
      await this.env.storage.resources.delete(ctx, name, preconditionEtag(options.etag));
    } catch (error) {
      if (isGatewayError(error) && error.code === Code.NOT_FOUND) throw notFound(name);
      throw error;
    }
  }

  /** What callers see of a stored body (the definition's `present`, e.g. secrets redacted). */
  present(data: T): T {
    return this.definition.present ? this.definition.present(data) : data;
  }

  /**
   * The body with its AIP-154 `etag` (last in the schema, so still in schema order). A frozen stored
   * body (the memory store hands out the same frozen object until the next write) is copied once and
   * the frozen copy reused, so a list does not copy every item on every request (measured: the copy
   * was 4.6% of a 50-item list's CPU). Other bodies (a new object per read, as PostgreSQL's) are copied.
   */
  withEtag(stored: StoredResource): T {
    const data = stored.data;
    if (!Object.isFrozen(data)) return this.typed({ ...data, etag: stored.etag });
    const cached = this.etagViews.get(data);
    if (cached !== undefined && cached.etag === stored.etag) return cached;
    const view = Object.freeze(this.typed({ ...data, etag: stored.etag }));
    this.etagViews.set(data, view);
    registerImmutableView(view);
    return view;
  }

  /** What callers see of a stored resource: its presented body with its etag. */
  view(stored: StoredResource): T {
    return this.present(this.withEtag(stored));
  }

  /**
   * A body this service checked (against the schema on the way in, or as stored by it) seen as the
   * resource's type: the one place JSON becomes a `T`.
   */
  private typed(data: JsonObject): T {
    return data as T;
  }

  /** A resource with a read mask applied: the same resource with fewer fields. */
  private masked(data: T, mask: string[] | undefined): T {
    return this.typed(applyReadMask(data, mask));
  }

  /** A record as stored: in schema order, without the etag (storage keeps that itself). */
  private toStore(record: T): JsonObject {
    const { etag: _etag, ...rest } = record;
    return this.ordered(rest);
  }

  /**
   * Orders keys as the schema declares them (keys the schema does not declare last, as they came), so
   * answers read the same every time. It sorts the record's own keys rather than probing every schema
   * field: a record has a few of a schema's dozens of fields, and a probe for an absent key is slow on
   * an object built by spreads (measured: 7.0 µs against 2.2 µs for a model with 100 deployedModelRefs).
   */
  ordered<R extends JsonObject>(record: R): R {
    const positions = this.fieldPositions;
    const unknown = positions.size;
    const keys = Object.keys(record).filter((key) => record[key] !== undefined);
    keys.sort((a, b) => (positions.get(a) ?? unknown) - (positions.get(b) ?? unknown));
    const out: JsonObject = {};
    for (const key of keys) out[key] = record[key]!;
    return out as R;
  }
}
