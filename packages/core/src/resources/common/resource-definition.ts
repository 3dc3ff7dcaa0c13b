import type { FieldDeclarations } from '../../listing/fields.js';
import type { RequestContext } from '../../kernel/request-context.js';
import type { JsonObject } from '../../ports/json.js';
import type { JsonSchema } from '../../validation/schema-validator.js';
import type { StateMachine } from './state-machine.js';
import type { ResourceEnvironment } from './resource-environment.js';
import type { CreateOptions } from './resource-service.js';

/**
 * The states of a resource type: its `state` field's values (`string` for a resource without a typed
 * one, e.g. a plain `JsonObject`).
 */
export type StateOf<T> = T extends { state?: infer S extends string } ? S : string;

/**
 * Everything that makes one resource kind: its schema, field behaviours, state machine, filter
 * declarations and the rules that run on create and update. `ResourceService` does the rest.
 *
 * `T` is the resource's type, derived from the schema (`ResourceType<typeof schema>`): the rules get
 * records already checked against the schema. It defaults to `JsonObject` for kinds that do not name one.
 */
export interface ResourceDefinition<T extends JsonObject = JsonObject> {
  /** Collection segment of names and URLs: `models`. */
  readonly collection: string;
  /** Singular, lowerCamelCase: `model`, `deploymentShape` (id parameter is `${singular}Id`). */
  readonly singular: string;
  /** The full resource schema (all fields, output-only included). */
  readonly schema: JsonSchema;
  /** Dotted camelCase paths the server owns; clients' values are ignored. */
  readonly outputOnly: readonly string[];
  /** Dotted paths that may be set at create but never changed afterwards. */
  readonly immutable: readonly string[];
  readonly fields: FieldDeclarations;
  /** Default orderBy, e.g. `create_time`. */
  readonly defaultOrder: string;
  readonly stateMachine?: StateMachine<StateOf<T>>;
  /** Fills defaults and enforces cross-field and reference rules on a new resource (mutates `data`). */
  prepareCreate?(ctx: RequestContext, data: T, env: ResourceEnvironment, options: CreateOptions): Promise<void> | void;
  /**
   * Shapes a stored body for callers, e.g. redacts write-only secrets. Applied to every answer of the
   * resource's service (create, get, list, update, actions); storage keeps the full body.
   */
  present?(data: T): T;
  /** Enforces rules on the merged result of an update (mutates `next`). */
  prepareUpdate?(ctx: RequestContext, next: T, previous: T, env: ResourceEnvironment): Promise<void> | void;
}
