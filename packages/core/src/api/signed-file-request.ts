import { invalidArgument } from '../errors/index.js';
import type { SignedFileRequest, SignedMethod } from '../resources/common/signed-file-urls.js';
import { queryString } from './query.js';
import type { QueryParamSpec, RouteRequest } from './route-spec.js';

/** The query parameters of a signed file URL, for route declarations. */
export const signedFileQuery: readonly QueryParamSpec[] = ['method', 'expires', 'signature'].map((name) => ({
  name, type: 'string', description: `The signed URL's ${name}.`,
}));

/**
 * The signature parameters of a request to a file URL (`…/{resource}/files/{filename}?method&expires&signature`),
 * for {@link SignedFileUrls.verify}. INVALID_ARGUMENT when one is missing or the URL is for another method.
 */
export function signedFileRequestOf(r: RouteRequest, resource: string, filename: string, method: SignedMethod): SignedFileRequest {
  const text = (name: string) => {
    const value = queryString(r.query, name);
    if (value === undefined || value === '') throw invalidArgument(`the file URL lacks its ${name} parameter`);
    return value;
  };
  if (text('method') !== method) throw invalidArgument(`this URL is for ${text('method')}, not ${method}`);
  return { resource, filename, method, expires: text('expires'), signature: text('signature') };
}
