import { apiKeyManagerToken, authenticatorToken, definePlugin, type GatewayPlugin } from '@berth/core';
import { ApiKeyService, type ApiKeyServiceOptions } from './api-key-service.js';
import { createToken } from '@berth/core';

export const apiKeyServiceToken = createToken<ApiKeyService>('ApiKeyService');

/**
 * Bearer API-key authentication: binds the Authenticator and the ApiKeyManager (create, list and delete
 * a user's keys). Roles come from the key owner's User resource.
 */
export function apiKeyAuth(options: ApiKeyServiceOptions = {}): GatewayPlugin {
  return definePlugin({
    id: 'auth-api-keys',
    register(binder) {
      binder.bindFactory(apiKeyServiceToken, (r) => ApiKeyService.fromResolver(r, options));
      binder.bindFactory(authenticatorToken, (r) => r.resolve(apiKeyServiceToken));
      binder.bindFactory(apiKeyManagerToken, (r) => r.resolve(apiKeyServiceToken));
    },
  });
}
