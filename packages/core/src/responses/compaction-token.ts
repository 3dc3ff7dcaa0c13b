/**
 * The `encrypted_content` of a compaction item Berth makes: the conversation's summary, opaque to clients.
 * It is encoded, not encrypted: it holds only what the caller's own conversation said (a client could as
 * well send the same text as a message), so secrecy would protect nothing; the prefix and version let the
 * gateway tell its own items from anything else (another provider's ciphertext is refused, not guessed at).
 */
const prefix = 'berth.compaction.v1.';

/** The opaque content of a compaction item holding `summary`. */
export function encodeCompaction(summary: string): string {
  return prefix + Buffer.from(JSON.stringify({ summary }), 'utf8').toString('base64url');
}

/** The summary a compaction item's content holds; undefined when it is not content this gateway made. */
export function decodeCompaction(content: string): string | undefined {
  if (!content.startsWith(prefix)) return undefined;
  const encoded = content.slice(prefix.length);
  if (!/^[A-Za-z0-9_-]*$/.test(encoded)) return undefined;
  try {
    const decoded: unknown = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'));
    const summary = typeof decoded === 'object' && decoded !== null ? (decoded as { summary?: unknown }).summary : undefined;
    return typeof summary === 'string' ? summary : undefined;
  } catch {
    return undefined;
  }
}
