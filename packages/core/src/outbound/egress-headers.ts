import type { IncomingHttpHeaders } from 'node:http';

/** Headers the client sets itself, or that describe one connection rather than the request. */
const clientOwned = new Set([
  'host', 'content-length', 'accept-encoding', 'connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'expect',
]);

/** Headers that follow a redirect to another origin; everything else (credentials, API keys, session ids) stays behind. */
const keptAcrossOrigins = new Set(['accept', 'accept-language', 'accept-encoding', 'content-type', 'content-language', 'user-agent', 'cache-control', 'pragma']);

/** Describe the body, so they go when a redirect turns the request into a GET without one. */
const bodyHeaders = new Set(['content-type', 'content-language', 'content-encoding', 'content-location']);

export type HeaderRecord = Record<string, string>;

/**
 * The headers to send: lowercased, repeated names joined, the client-owned ones dropped, and
 * `accept-encoding: identity` so the answer is never compressed (the byte cap then counts what is read,
 * and there is no decompression bomb to defuse).
 */
export function outgoingHeaders(entries: Iterable<readonly [string, string]>): HeaderRecord {
  const headers = new Map<string, string>();
  for (const [name, value] of entries) {
    const key = name.toLowerCase();
    if (clientOwned.has(key)) continue;
    const previous = headers.get(key);
    headers.set(key, previous === undefined ? value : `${previous}, ${value}`);
  }
  headers.set('accept-encoding', 'identity');
  // fromEntries defines own properties: a header named __proto__ cannot reach the prototype.
  return Object.fromEntries(headers);
}

/** The headers of the next hop: only the safe ones across origins, none describing a body that was dropped. */
export function redirectedHeaders(headers: HeaderRecord, sameOrigin: boolean, keepBody: boolean): HeaderRecord {
  return Object.fromEntries(
    Object.entries(headers).filter(([key]) => (sameOrigin || keptAcrossOrigins.has(key)) && (keepBody || !bodyHeaders.has(key))),
  );
}

/** Response headers as one string per lowercased name (undici already lowercases them). */
export function flattenHeaders(headers: IncomingHttpHeaders): HeaderRecord {
  const flat: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat.push([name, Array.isArray(value) ? value.join(', ') : value]);
  }
  return Object.fromEntries(flat);
}

/** Response headers as a web `Headers`, repeated ones appended (so `set-cookie` stays separate). */
export function webHeaders(headers: IncomingHttpHeaders): Headers {
  const result = new Headers();
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) result.append(name, item);
  }
  return result;
}
