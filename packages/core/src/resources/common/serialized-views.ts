/**
 * JSON text of immutable resource views, made once per view. A view registered here is deep-frozen (a
 * frozen copy of a deep-frozen stored body plus its etag, see `ResourceService.withEtag`), so its JSON
 * cannot change while the view lives; repeated reads of an unchanged resource (a model polled by
 * clients, a deployment watched until READY) then answer without serializing the same body again.
 * Entries go with their views (a WeakMap), which go with the stored bodies they were made from.
 */
const serializedViews = new WeakMap<object, string | null>();

/** Registers a deep-frozen view whose JSON may be cached. Not frozen: ignored. */
export function registerImmutableView(view: object): void {
  if (Object.isFrozen(view) && !serializedViews.has(view)) serializedViews.set(view, null);
}

/** The JSON text of a registered immutable view (serialized on first use), or undefined for any other value. */
export function serializedViewOf(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const cached = serializedViews.get(value);
  if (cached === undefined) return undefined;
  if (cached !== null) return cached;
  const text = JSON.stringify(value);
  serializedViews.set(value, text);
  return text;
}
