import { defineResourceApi } from '../../api/resource-api.js';
import { createWithIdParam } from '../../api/create-method.js';
import { standardOperations } from '../../api/standard-operations.js';
import { userDefinition } from './user-definition.js';
import type { UserService } from './user-service.js';

/** Users over HTTP: create takes `?userId=`. */
export const userApi = defineResourceApi<UserService>({
  definition: userDefinition, tag: 'Users',
  create: createWithIdParam('userId'),
  operations: (users) => standardOperations(users, ['update', 'delete']),
});
