import type { FieldDeclarations } from '../../listing/fields.js';
import { commonFields } from '../common/fields.js';
import { userRoleValues, userStateValues } from './user-schema.js';

/** Fields usable in `filter` and `orderBy` on users (snake_case or camelCase). */
export const userFields: FieldDeclarations = {
  ...commonFields,
  state: { path: ['state'], type: 'enum', enumValues: userStateValues },
  role: { path: ['role'], type: 'enum', enumValues: userRoleValues },
  email: { path: ['email'], type: 'string' },
  serviceAccount: { path: ['serviceAccount'], type: 'bool' },
};
