/**
 * Splits a resource name into the parent and collection it is listed under:
 * `accounts/a/models/m` → parent `accounts/a`, collection `models`;
 * `accounts/a/users/u/apiKeys/k` → parent `accounts/a/users/u`, collection `apiKeys`.
 * A name with fewer than two segments has an empty parent.
 */
export function splitResourceName(name: string): { parent: string; collection: string } {
  const segments = name.split('/');
  if (segments.length < 2) return { parent: '', collection: '' };
  return {
    parent: segments.slice(0, -2).join('/'),
    collection: segments[segments.length - 2] ?? '',
  };
}
