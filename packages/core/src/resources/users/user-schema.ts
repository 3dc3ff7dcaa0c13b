import type { ResourceType } from '../common/schema-type.js';
import { displayNameSchema, nameSchema, statusSchema, timestampSchema, etagSchema } from '../common/schema-parts.js';

export const userStateValues = ['STATE_UNSPECIFIED', 'CREATING', 'READY', 'UPDATING', 'DELETING'] as const;
export type UserState = (typeof userStateValues)[number];
/** The roles of the reference API (api-facts: User.role); the same as the principal's `Role`. */
export const userRoleValues = ['admin', 'user', 'contributor', 'inference-user'] as const;
export type UserRole = (typeof userRoleValues)[number];

/**
 * The User resource (spec: Resources › User). `role` is required on create (checked in the rules,
 * not here, so that a PATCH with an update mask need not repeat it).
 */
export const userSchema = {
  type: 'object',
  properties: {
    name: nameSchema,
    role: { type: 'string', enum: userRoleValues },
    displayName: displayNameSchema,
    serviceAccount: { type: 'boolean' },
    email: { type: 'string', format: 'email', maxLength: 320 },
    createTime: timestampSchema,
    updateTime: timestampSchema,
    state: { type: 'string', enum: userStateValues },
    status: statusSchema,
    etag: etagSchema,
  },
} as const;

export type User = ResourceType<typeof userSchema>;

export const userOutputOnly = ['name', 'createTime', 'updateTime', 'state', 'status'] as const;
