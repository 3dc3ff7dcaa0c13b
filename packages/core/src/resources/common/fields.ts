import type { FieldDeclarations } from '../../listing/fields.js';

/** Filter/order fields every resource has. */
export const commonFields: FieldDeclarations = {
  name: { path: ['name'], type: 'string' },
  displayName: { path: ['displayName'], type: 'string' },
  createTime: { path: ['createTime'], type: 'timestamp' },
  updateTime: { path: ['updateTime'], type: 'timestamp' },
};
