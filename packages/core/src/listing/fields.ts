/**
 * Declarations of the fields a resource allows in `filter` and `orderBy`: contract types, defined in
 * `contracts/list-query.ts` (storage back ends consume them too) and re-exported here.
 */
export type { FieldType, FieldDeclaration, FieldDeclarations } from '../contracts/list-query.js';
