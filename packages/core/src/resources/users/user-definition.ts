import type { ResourceDefinition } from '../common/resource-definition.js';
import { userFields } from './user-fields.js';
import { applyUserCreateRules, applyUserUpdateRules } from './user-rules.js';
import { userOutputOnly, userSchema, type User } from './user-schema.js';
import { userStateMachine } from './user-state-machine.js';

export const userDefinition: ResourceDefinition<User> = {
  collection: 'users',
  singular: 'user',
  schema: userSchema,
  outputOnly: userOutputOnly,
  immutable: [],
  fields: userFields,
  defaultOrder: 'create_time',
  stateMachine: userStateMachine,
  prepareCreate: (_ctx, data) => applyUserCreateRules(data),
  prepareUpdate: (ctx, next, previous, env) => applyUserUpdateRules(ctx, next, previous, env.storage.resources),
};
