import { etagSchema, timestampSchema, type ApiKeyManager, type JsonSchema } from '@berth/core';
import { queryNumber, queryString } from '../query.js';
import type { RouteSpec } from '../route-spec.js';
import { emptySchema, etagQueryParam, preconditionOf } from './resource-routes.js';

const apiKeySchema: JsonSchema = {
  type: 'object',
  properties: {
    keyId: { type: 'string' },
    displayName: { type: 'string' },
    key: { type: 'string', description: 'The secret; present only in the answer of create.' },
    prefix: { type: 'string' },
    createTime: timestampSchema,
    expireTime: timestampSchema,
    etag: etagSchema,
  },
};

/** `accounts/{a}/users/{u}/apiKeys`: create (secret shown once), list (no secrets), delete. */
export function apiKeyRoutes(apiKeys: ApiKeyManager): RouteSpec[] {
  const base = '/v1/accounts/{account_id}/users/{user_id}/apiKeys';
  const userName = (p: Readonly<Record<string, string>>) => `accounts/${p.account_id}/users/${p.user_id}`;
  return [
    {
      method: 'POST', path: base, tag: 'API keys', operationId: 'createApiKey', summary: "Create an API key for a user (the key is shown only in this answer)",
      requestBody: { type: 'object', properties: { apiKey: { type: 'object', properties: { displayName: { type: 'string' }, expireTime: timestampSchema } } } },
      response: apiKeySchema,
      handle: (r) => apiKeys.create(r.ctx, userName(r.params), r.body ?? {}),
    },
    {
      method: 'GET', path: base, tag: 'API keys', operationId: 'listApiKeys', summary: "List a user's API keys (without secrets)",
      query: [
        { name: 'pageSize', type: 'integer', description: 'Maximum items per page (default 50, at most 200).' },
        { name: 'pageToken', type: 'string', description: 'Token from a previous list call.' },
      ],
      response: { type: 'object', properties: { apiKeys: { type: 'array', items: apiKeySchema }, nextPageToken: { type: 'string' }, totalSize: { type: 'integer' } } },
      handle: async (r) => {
        const page = await apiKeys.list(r.ctx, userName(r.params), {
          ...(queryNumber(r.query, 'pageSize') !== undefined ? { pageSize: queryNumber(r.query, 'pageSize') } : {}),
          ...(queryString(r.query, 'pageToken') !== undefined ? { pageToken: queryString(r.query, 'pageToken') } : {}),
        });
        return { apiKeys: page.apiKeys, ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}), totalSize: page.totalSize };
      },
    },
    {
      method: 'DELETE', path: `${base}/{key_id}`, tag: 'API keys', operationId: 'deleteApiKey', summary: 'Delete (revoke) an API key',
      query: [etagQueryParam],
      response: emptySchema,
      handle: async (r) => {
        await apiKeys.delete(r.ctx, userName(r.params), r.params.key_id!, preconditionOf(r));
        return {};
      },
    },
  ];
}
