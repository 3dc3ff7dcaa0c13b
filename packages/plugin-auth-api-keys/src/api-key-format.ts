import { createHash, randomBytes } from 'node:crypto';

const keyPrefix = 'berth_';

/** A new secret: `berth_` + 40 base62-ish characters (240 bits). */
export function generateApiKey(): string {
  return keyPrefix + randomBytes(30).toString('base64url').replace(/[-_]/g, 'x');
}

/** Keys are stored only as SHA-256 hashes: a leaked store does not leak credentials. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** The part of a key shown in lists, to recognise it. */
export function displayPrefix(key: string): string {
  return key.slice(0, Math.min(12, Math.max(4, key.length - 8)));
}
