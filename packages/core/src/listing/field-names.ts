import type { FieldDeclaration, FieldDeclarations } from './fields.js';
import { snakeToCamel } from './values.js';

/** A field path from a filter or orderBy, resolved against the declarations. */
export interface ResolvedField {
  /** The declarations key that matched (canonical dotted camelCase path). */
  readonly key: string;
  readonly declaration: FieldDeclaration;
  /** Set for `labels.env` on a map field: the key, verbatim (map keys are not case-converted). */
  readonly mapKey?: string;
}

function lookup(declarations: FieldDeclarations, key: string): FieldDeclaration | undefined {
  return Object.hasOwn(declarations, key) ? declarations[key] : undefined;
}

/**
 * Resolves path segments written snake_case or camelCase (`autoscaling_policy.scale_up_window`) to a
 * declared field; the longest declared prefix wins, and one extra segment after a map field is its key.
 * Undefined when nothing matches.
 */
export function resolveField(segments: readonly string[], declarations: FieldDeclarations): ResolvedField | undefined {
  for (let i = segments.length; i >= 1; i--) {
    const head = segments.slice(0, i);
    const camel = head.map(snakeToCamel).join('.');
    const raw = head.join('.');
    const key = lookup(declarations, camel) ? camel : lookup(declarations, raw) ? raw : undefined;
    if (key === undefined) continue;
    const declaration = lookup(declarations, key) as FieldDeclaration;
    if (i === segments.length) return { key, declaration };
    const mapKey = segments[i];
    if (declaration.map && i === segments.length - 1 && mapKey !== undefined) return { key, declaration, mapKey };
    return undefined;
  }
  return undefined;
}

const SYNTHETIC_NAME: FieldDeclaration = { path: ['name'], type: 'string' };

/** The declaration of `name`, the unique tiebreaker; synthesized when a resource forgot to declare it. */
export function nameDeclaration(declarations: FieldDeclarations): FieldDeclaration {
  return lookup(declarations, 'name') ?? SYNTHETIC_NAME;
}

/** True when both declarations address the same stored value (aliases may share a path). */
export function samePath(a: FieldDeclaration, b: FieldDeclaration): boolean {
  return a.path.length === b.path.length && a.path.every((segment, i) => segment === b.path[i]);
}
