import type { WatchKindName } from './watch.js';

/** The shape of one entry of the resource list: everything the generic commands need to know about a kind. */

/** How a flag's text becomes a JSON value. */
export type FieldType = 'string' | 'int' | 'int64' | 'number' | 'bool' | 'list' | 'json';

/** A flag that sets one field of the request body (`--display-name` → `displayName`). */
export interface FieldFlag {
  /** Long flag name without dashes, kebab-case. */
  flag: string;
  /** Dotted path in the resource body. */
  path: string;
  type: FieldType;
  description: string;
  /** Only at create (the field is immutable, or only meaningful then). */
  createOnly?: boolean;
  /** Allowed values (shown in help and completion). */
  choices?: readonly string[];
  /** A value in the flag's argument placeholder, e.g. `<count>`. */
  placeholder?: string;
  /** The command refuses to run without it (custom methods). */
  required?: boolean;
}

/** A table column: header and the dotted path of the value (or a function of the resource). */
export interface Column {
  header: string;
  path: string;
  /** Show only the last segment of a resource name (`accounts/a/models/m` → `m`). */
  short?: boolean;
}

/** A custom method (AIP-136): `POST|PATCH …/{id}:{verb}` with a body built from flags. */
export interface CustomMethod {
  /** Subcommand name (`scale`). */
  command: string;
  /** Path suffix after `:` (`scale`). */
  verb: string;
  method: 'POST' | 'PATCH';
  description: string;
  fields?: readonly FieldFlag[];
  /** Past tense for the message when the answer has no body (`cancelled`). */
  done: string;
}

export type Operation = 'create' | 'get' | 'list' | 'update' | 'delete';

/** A query parameter a command takes as a flag (`--hard` on delete, `--show-deleted` on list). */
export interface QueryFlag {
  flag: string;
  param: string;
  type: 'bool' | 'string';
  description: string;
}

export interface ResourceSpec {
  /** Command name, plural kebab-case (`deployment-shapes`). */
  command: string;
  aliases?: readonly string[];
  /** Singular words for help and messages (`deployment shape`). */
  singular: string;
  /** URL collection segment under the account (`deploymentShapes`). */
  collection: string;
  /** Key of the array in list answers. */
  listKey: string;
  /** A parent collection the resource lives under (API keys under users): its flag and collection. */
  parent?: { flag: string; collection: string; description: string };
  operations: readonly Operation[];
  /**
   * How create names the new resource: `query` sends `?{idParam}=`, `body` sends `{ [idParam], [bodyKey]: resource }`,
   * `none` lets the server choose (the body is `{ [bodyKey]: resource }` when bodyKey is set).
   */
  create?: { id: 'query' | 'body' | 'none'; idParam?: string; bodyKey?: string; idRequired?: boolean };
  /** Resource fields settable by flags at create and update. */
  fields: readonly FieldFlag[];
  columns: readonly Column[];
  methods?: readonly CustomMethod[];
  listFlags?: readonly QueryFlag[];
  deleteFlags?: readonly QueryFlag[];
  createFlags?: readonly QueryFlag[];
  /** Long work the CLI can follow (a kind of `watchKinds`): `watch <id>` and `create --wait` poll it with a progress line. */
  watch?: WatchKindName;
}
