import {
  apiKeyManagerToken, defineRouteModule, emptySchema, etagQueryParam, etagSchema, listResponseSchema, preconditionOf, queryNumber, queryString,
  timestampSchema, type ApiKeyManager, type JsonSchema, type RouteRequest, type RouteSpec,
} from '@berth/core';

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

const userName = (r: RouteRequest) => `accounts/${r.params.account_id}/users/${r.params.user_id}`;

/**
 * `accounts/{a}/users/{u}/apiKeys`: create (secret shown once), list (no secrets), delete. Permissions
 * are the manager's (a user may manage their own keys): the routes check only the path's account.
 */
export function apiKeyRoutes(apiKeys: ApiKeyManager): RouteSpec[] {
  const base = '/v1/accounts/{account_id}/users/{user_id}/apiKeys';
  return [
    {
      method: 'POST', path: base, tag: 'API keys', operationId: 'createApiKey', summary: 'Create an API key for a user (the key is shown only in this answer)',
      requestBody: { type: 'object', properties: { apiKey: { type: 'object', properties: { displayName: { type: 'string' }, expireTime: timestampSchema } } } },
      response: apiKeySchema,
      schemaNames: { response: 'ApiKey' },
      handle: (r) => apiKeys.create(r.ctx, userName(r), r.body ?? {}),
    },
    {
      method: 'GET', path: base, tag: 'API keys', operationId: 'listApiKeys', summary: "List a user's API keys (without secrets)",
      query: [
        { name: 'pageSize', type: 'integer', description: 'Maximum items per page (default 50, at most 200).' },
        { name: 'pageToken', type: 'string', description: 'Token from a previous list call.' },
      ],
      response: listResponseSchema('apiKeys', apiKeySchema),
      handle: async (r) => {
        const pageSize = queryNumber(r.query, 'pageSize');
        const pageToken = queryString(r.query, 'pageToken');
        const page = await apiKeys.list(r.ctx, userName(r), { ...(pageSize !== undefined ? { pageSize } : {}), ...(pageToken !== undefined ? { pageToken } : {}) });
        return { apiKeys: page.apiKeys, ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}), totalSize: page.totalSize };
      },
    },
    {
      method: 'DELETE', path: `${base}/{key_id}`, tag: 'API keys', operationId: 'deleteApiKey', summary: 'Delete (revoke) an API key',
      query: [etagQueryParam], response: emptySchema,
      handle: async (r) => {
        await apiKeys.delete(r.ctx, userName(r), r.params.key_id!, preconditionOf(r));
        return {};
      },
    },
  ];
}

/**
 * The HTTP surface of users' API keys, served over whatever binds the ApiKeyManager port: `apiKeyAuth()`
 * registers it; another plugin providing the port registers it with `registerResourceModules`.
 */
export const apiKeyRoutesModule = defineRouteModule({ collection: 'apiKeys', service: apiKeyManagerToken, routes: apiKeyRoutes });
