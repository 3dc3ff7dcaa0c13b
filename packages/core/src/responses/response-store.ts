/**
 * Stored responses in the resource store: `accounts/<account>/responses/<resp_id>`, so every storage
 * plugin (memory, PostgreSQL) keeps them with no port of their own, and what one gateway instance writes
 * another reads at once. Each record holds the response object and the conversation that led to it
 * (earlier items and this request's input), so continuing from it is one read however long the chain.
 */
import type { JsonObject } from '../contracts/json.js';
import type { RequestContext } from '../contracts/request-context.js';
import type { OrderTerm } from '../contracts/list-query.js';
import type { Principal } from '../contracts/request-context.js';
import type { EnqueueRequest, ResourceStore, Storage, TransactionResourceStore } from '../ports/storage.js';
import { Code, GatewayError, isGatewayError } from '../errors/index.js';
import { sortKeyOf } from '../listing/index.js';
import type { ResponseRequest } from './response-request.js';
import type { ConversationItem, ResponseObject, ResponseStatus } from './response-types.js';

/** The collection of stored responses under an account. */
export const responsesCollection = 'responses';

export interface StoredResponse {
  readonly response: ResponseObject;
  /** The items before this response's output: the previous conversation and this request's input. */
  readonly conversation: ConversationItem[];
}

/** What a background response's worker needs besides the stored conversation: the request and who made it. */
export interface BackgroundWork {
  readonly request: ResponseRequest;
  /** The caller that created the response: the worker resolves the model with the caller's rights. */
  readonly principal: Principal;
}

/** A stored background response with what its worker runs. */
export interface StoredBackgroundResponse extends StoredResponse {
  readonly work: BackgroundWork;
}

/** Statuses a background response leaves only once (to a terminal one). */
export function isActiveStatus(status: ResponseStatus): boolean {
  return status === 'queued' || status === 'in_progress';
}

/** A page of stored responses, newest first. */
export interface StoredResponsePage {
  readonly responses: ResponseObject[];
  readonly hasMore: boolean;
}

type ResponseRecord = JsonObject & {
  name: string;
  createTime: string;
  response: ResponseObject;
  conversation: ConversationItem[];
  /** Background responses only: the parsed request (plain JSON data) and its principal. */
  background?: JsonObject;
};

const createTime = { path: ['createTime'], type: 'timestamp' } as const;
const name = { path: ['name'], type: 'string' } as const;
const newestFirst: readonly OrderTerm[] = [{ declaration: createTime, descending: true }, { declaration: name, descending: true }];
const oldestFirst: readonly OrderTerm[] = [{ declaration: createTime, descending: false }, { declaration: name, descending: false }];

/** NOT_FOUND for a response id the caller's account has not stored (`param` names where it came from). */
export function responseNotFound(id: string, param?: string): GatewayError {
  return new GatewayError(Code.NOT_FOUND, `Response with id '${id}' not found.`, { reason: 'NOT_FOUND', ...(param !== undefined ? { field: param } : {}) });
}

/** Ids a caller may name: anything else cannot be a stored response (and must not reach a resource name). */
const idPattern = /^[A-Za-z0-9_-]{1,128}$/;

function isBackgroundWork(value: unknown): value is BackgroundWork {
  if (typeof value !== 'object' || value === null) return false;
  const work = value as { request?: unknown; principal?: unknown };
  return typeof work.request === 'object' && work.request !== null && typeof work.principal === 'object' && work.principal !== null;
}

function isRecord(data: JsonObject): data is ResponseRecord {
  return typeof data.createTime === 'string' && typeof data.response === 'object' && Array.isArray(data.conversation);
}

/**
 * Decides a stored response's next state from its current one (read under the record's lock):
 * the new response object, or undefined to leave it as it is.
 */
export type ResponseTransition = (current: ResponseObject) => ResponseObject | undefined;

export class ResponseStore {
  /** `storage` (transactions and the queue) is needed by background responses only. */
  constructor(
    private readonly resources: ResourceStore,
    private readonly storage?: Pick<Storage, 'transaction'>,
  ) {}

  /** `accounts/<account>/responses/<id>`, or undefined for an id no response can have. */
  nameOf(accountId: string, id: string): string | undefined {
    return idPattern.test(id) ? `accounts/${accountId}/${responsesCollection}/${id}` : undefined;
  }

  /** Stores a new response (its `id` must be set). `createTimeMs` orders the list. */
  async save(ctx: RequestContext, accountId: string, response: ResponseObject, conversation: ConversationItem[], createTimeMs: number): Promise<void> {
    const recordName = this.nameOf(accountId, response.id ?? '');
    if (recordName === undefined) throw new Error('a stored response needs a response id');
    const record: ResponseRecord = { name: recordName, createTime: new Date(createTimeMs).toISOString(), response, conversation };
    await this.resources.create(ctx, recordName, record);
  }

  /**
   * Stores a new background response together with its job (`job(name)`), in one transaction: the job
   * runs only a response that exists, and a response never waits for a job that was not written.
   */
  async saveBackground(
    ctx: RequestContext, accountId: string, response: ResponseObject, conversation: ConversationItem[], createTimeMs: number,
    work: BackgroundWork, job: (name: string) => EnqueueRequest,
  ): Promise<void> {
    const recordName = this.nameOf(accountId, response.id ?? '');
    if (recordName === undefined) throw new Error('a stored response needs a response id');
    if (!this.storage) throw new Error('background responses need the storage (transactions and the queue)');
    // ResponseRequest and Principal are plain JSON data (strings, numbers, booleans, arrays, objects).
    const background = work as unknown as JsonObject;
    const record: ResponseRecord = { name: recordName, createTime: new Date(createTimeMs).toISOString(), response, conversation, background };
    await this.storage.transaction(ctx, async (tx) => {
      await tx.resources.create(ctx, recordName, record);
      await tx.queue.enqueue(ctx, job(recordName));
    });
  }

  /** A stored background response by its record name, with its work; undefined when gone or not a background one. */
  async loadBackground(ctx: RequestContext, recordName: string): Promise<StoredBackgroundResponse | undefined> {
    const stored = await this.resources.get(ctx, recordName);
    if (!stored || !isRecord(stored.data) || !isBackgroundWork(stored.data.background)) return undefined;
    return { response: stored.data.response, conversation: stored.data.conversation, work: stored.data.background };
  }

  /**
   * Applies `transition` to a stored response under the record's lock (`getForUpdate` in a storage
   * transaction), so concurrent transitions of one response run one after another and each sees the
   * result of the previous: a cancel racing a completion leaves exactly one terminal status. With `tx`
   * the change joins that transaction (e.g. the job's fenced completion). Returns the response as
   * stored afterwards, or undefined when the record is gone.
   */
  async transition(ctx: RequestContext, recordName: string, transition: ResponseTransition, tx?: { resources: TransactionResourceStore }): Promise<ResponseObject | undefined> {
    const apply = async (resources: TransactionResourceStore): Promise<ResponseObject | undefined> => {
      const current = await resources.getForUpdate(ctx, recordName);
      if (!current || !isRecord(current.data)) return undefined;
      const next = transition(current.data.response);
      if (next === undefined) return current.data.response;
      await resources.update(ctx, recordName, { ...current.data, response: next }, current.etag);
      return next;
    };
    if (tx) return apply(tx.resources);
    if (!this.storage) throw new Error('response transitions need the storage (transactions)');
    return this.storage.transaction(ctx, (opened) => apply(opened.resources));
  }

  /** The stored response `id` of the account, or undefined (also for another account's id). */
  async load(ctx: RequestContext, accountId: string, id: string): Promise<StoredResponse | undefined> {
    const recordName = this.nameOf(accountId, id);
    if (recordName === undefined) return undefined;
    const stored = await this.resources.get(ctx, recordName);
    if (!stored || !isRecord(stored.data)) return undefined;
    return { response: stored.data.response, conversation: stored.data.conversation };
  }

  /** Removes a stored response. NOT_FOUND when the account has none with this id. */
  async remove(ctx: RequestContext, accountId: string, id: string): Promise<void> {
    const recordName = this.nameOf(accountId, id);
    if (recordName === undefined) throw responseNotFound(id);
    try {
      await this.resources.delete(ctx, recordName);
    } catch (error) {
      if (isGatewayError(error) && error.code === Code.NOT_FOUND) throw responseNotFound(id);
      throw error;
    }
  }

  /**
   * A page of the account's responses, newest first: after the response `after` (older ones), or the
   * `limit` just before the response `before` (newer ones), or from the newest. A cursor that names no
   * stored response of the account is NOT_FOUND.
   */
  async list(ctx: RequestContext, accountId: string, options: { limit: number; after?: string; before?: string }): Promise<StoredResponsePage> {
    const cursorId = options.after ?? options.before;
    let position: ReturnType<typeof sortKeyOf> | undefined;
    if (cursorId !== undefined) {
      const recordName = this.nameOf(accountId, cursorId);
      const cursor = recordName === undefined ? undefined : await this.resources.get(ctx, recordName);
      if (!cursor) throw responseNotFound(cursorId, options.after !== undefined ? 'after' : 'before');
      position = sortKeyOf(cursor.data, newestFirst);
    }
    const backwards = options.before !== undefined;
    const page = await this.resources.list(ctx, {
      parent: `accounts/${accountId}`,
      collection: responsesCollection,
      orderBy: backwards ? oldestFirst : newestFirst,
      pageSize: options.limit,
      ...(position !== undefined ? { after: position } : {}),
    });
    const responses = page.items.flatMap((item) => (isRecord(item.data) ? [item.data.response] : []));
    if (backwards) responses.reverse();
    return { responses, hasMore: page.hasMore };
  }
}
