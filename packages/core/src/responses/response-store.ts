/**
 * Stored responses in the resource store: `accounts/<account>/responses/<resp_id>`, so every storage
 * plugin (memory, PostgreSQL) keeps them with no port of their own, and what one gateway instance writes
 * another reads at once. Each record holds the response object and the conversation that led to it
 * (earlier items and this request's input), so continuing from it is one read however long the chain.
 */
import type { JsonObject } from '../contracts/json.js';
import type { RequestContext } from '../contracts/request-context.js';
import type { OrderTerm } from '../contracts/list-query.js';
import type { ResourceStore } from '../ports/storage.js';
import { Code, GatewayError, isGatewayError } from '../errors/index.js';
import { sortKeyOf } from '../listing/index.js';
import type { ConversationItem, ResponseObject } from './response-types.js';

/** The collection of stored responses under an account. */
export const responsesCollection = 'responses';

export interface StoredResponse {
  readonly response: ResponseObject;
  /** The items before this response's output: the previous conversation and this request's input. */
  readonly conversation: ConversationItem[];
}

/** A page of stored responses, newest first. */
export interface StoredResponsePage {
  readonly responses: ResponseObject[];
  readonly hasMore: boolean;
}

type ResponseRecord = JsonObject & { name: string; createTime: string; response: ResponseObject; conversation: ConversationItem[] };

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

function isRecord(data: JsonObject): data is ResponseRecord {
  return typeof data.createTime === 'string' && typeof data.response === 'object' && Array.isArray(data.conversation);
}

export class ResponseStore {
  constructor(private readonly resources: ResourceStore) {}

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
