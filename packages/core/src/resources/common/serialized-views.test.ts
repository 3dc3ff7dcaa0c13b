import { describe, expect, it } from 'vitest';
import { registerImmutableView, serializedViewOf } from './serialized-views.js';

describe('serialized views', () => {
  it('answers the JSON text of a registered frozen view, the same text on every call', () => {
    const view = Object.freeze({ name: 'accounts/a/models/m', nested: Object.freeze({ n: 1 }), etag: '3' });
    registerImmutableView(view);
    const first = serializedViewOf(view);
    expect(first).toBe(JSON.stringify(view));
    expect(serializedViewOf(view)).toBe(first);
  });

  it('ignores values that were not registered, and views that are not frozen', () => {
    const open = { name: 'accounts/a/models/m' };
    registerImmutableView(open);
    open.name = 'changed';
    expect(serializedViewOf(open)).toBeUndefined();
    expect(serializedViewOf(Object.freeze({ a: 1 }))).toBeUndefined();
    expect(serializedViewOf('text')).toBeUndefined();
    expect(serializedViewOf(null)).toBeUndefined();
  });
});
