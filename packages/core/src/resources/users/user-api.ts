import { idQueryParam, defineResourceApi } from '../../api/resource-api.js';
import { preconditionOf } from '../../api/resource-routes.js';
import { queryString } from '../../api/query.js';
import { userDefinition } from './user-definition.js';
import type { UserService } from './user-service.js';

/** Users over HTTP: create takes `?userId=`. */
export const userApi = defineResourceApi<UserService>({
  definition: userDefinition, tag: 'Users', createQuery: [idQueryParam('userId')],
  operations: (users) => ({
    create: (ctx, accountId, r) => users.create(ctx, accountId, r.body ?? {}, queryString(r.query, 'userId')),
    get: (ctx, name, mask) => users.get(ctx, name, mask),
    list: (ctx, accountId, params) => users.list(ctx, accountId, params),
    update: (ctx, name, body, mask, precondition) => users.update(ctx, name, body, mask, precondition),
    delete: (ctx, name, r) => users.delete(ctx, name, preconditionOf(r)),
  }),
});
