/**
 * The list answers of the Responses API (`GET /responses`, `GET /responses/{id}/input_items`): the query
 * parameters `limit` (1 to 100, default 20; larger values are lowered to 100), `after`, `before` and,
 * for input items, `order`; and the `{object: "list", data, has_more, first_id, last_id}` body.
 */
import { invalid } from './request-values.js';
import type { ConversationItem, ResponseList } from './response-types.js';

export const defaultListLimit = 20;
export const maxListLimit = 100;

/** Query parameters of a list call, as strings (absent when not given). */
export type ResponseListParams = Readonly<Record<string, string | undefined>>;

export interface ResponseListOptions {
  readonly limit: number;
  readonly after?: string;
  readonly before?: string;
  readonly order: 'asc' | 'desc';
}

const present = (value: string | undefined): value is string => value !== undefined && value !== '';

/** Reads and checks list parameters. Throws INVALID_ARGUMENT naming the parameter. */
export function parseResponseListParams(params: ResponseListParams): ResponseListOptions {
  let limit = defaultListLimit;
  if (present(params.limit)) {
    if (!/^[0-9]{1,9}$/.test(params.limit) || Number(params.limit) < 1) throw invalid('limit must be an integer from 1 to 100', 'limit');
    limit = Math.min(Number(params.limit), maxListLimit);
  }
  const order = params.order;
  if (present(order) && order !== 'asc' && order !== 'desc') throw invalid('order must be asc or desc', 'order', 'UNSUPPORTED_VALUE');
  if (present(params.after) && present(params.before)) throw invalid('give after or before, not both', 'before');
  return {
    limit,
    order: order === 'asc' ? 'asc' : 'desc',
    ...(present(params.after) ? { after: params.after } : {}),
    ...(present(params.before) ? { before: params.before } : {}),
  };
}

/** The list body over `data`, whose items carry ids. */
export function responseListBody<T extends { id: string | null }>(data: T[], hasMore: boolean): ResponseList<T> {
  return { object: 'list', data, has_more: hasMore, first_id: data[0]?.id ?? null, last_id: data[data.length - 1]?.id ?? null };
}

/**
 * One page of a response's input items in `order` (default newest first): after the item `after`, or
 * the `limit` items just before the item `before`. A cursor that is not among the items is INVALID_ARGUMENT.
 */
export function pageInputItems(items: readonly ConversationItem[], options: ResponseListOptions): ResponseList<ConversationItem> {
  const ordered = options.order === 'asc' ? [...items] : [...items].reverse();
  const indexOf = (id: string, param: string): number => {
    const index = ordered.findIndex((item) => item.id === id);
    if (index < 0) throw invalid(`${param} names no input item of this response: ${id}`, param);
    return index;
  };
  if (options.before !== undefined) {
    const end = indexOf(options.before, 'before');
    const start = Math.max(0, end - options.limit);
    return responseListBody(ordered.slice(start, end), start > 0);
  }
  const start = options.after !== undefined ? indexOf(options.after, 'after') + 1 : 0;
  const data = ordered.slice(start, start + options.limit);
  return responseListBody(data, start + data.length < ordered.length);
}
