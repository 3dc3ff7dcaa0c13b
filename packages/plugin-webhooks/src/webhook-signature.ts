import { createHmac } from 'node:crypto';
import { invalidArgument } from '@berth/core';

const secretPrefix = 'whsec_';
const base64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * The HMAC key of a signing secret, as the Standard Webhooks specification reads one: a secret that
 * starts with `whsec_` is the base64 encoding of the key (what Standard Webhooks libraries generate and
 * verify with); any other secret is used as its UTF-8 bytes (what clients of the reference API send as
 * `webhook_secret`, e.g. a passphrase).
 * @throws GatewayError INVALID_ARGUMENT for an empty secret, or a `whsec_` secret that is not base64 of
 *   at least one byte
 */
export function webhookSigningKey(secret: string): Buffer {
  if (secret === '') throw invalidArgument('webhook secret must not be empty', { reason: 'WEBHOOK_SECRET_INVALID' });
  if (!secret.startsWith(secretPrefix)) return Buffer.from(secret, 'utf8');
  const encoded = secret.slice(secretPrefix.length);
  const key = base64.test(encoded) && encoded.length % 4 === 0 ? Buffer.from(encoded, 'base64') : Buffer.alloc(0);
  if (key.length === 0) {
    throw invalidArgument('webhook secret starts with "whsec_" but the rest is not base64 of the key', { reason: 'WEBHOOK_SECRET_INVALID' });
  }
  return key;
}

/** What one attempt signs: the same id on every attempt, a fresh timestamp, the exact body bytes sent. */
export interface WebhookSignatureInput {
  readonly webhookId: string;
  /** Seconds since the epoch, as sent in `webhook-timestamp`. */
  readonly timestampSeconds: number;
  readonly body: string;
}

/**
 * The Standard Webhooks headers of one attempt: `webhook-id`, `webhook-timestamp` and, with a key,
 * `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`.
 */
export function webhookHeaders(input: WebhookSignatureInput, key: Buffer | undefined): Record<string, string> {
  const timestamp = String(Math.floor(input.timestampSeconds));
  const headers: Record<string, string> = { 'webhook-id': input.webhookId, 'webhook-timestamp': timestamp };
  if (key !== undefined) {
    const signature = createHmac('sha256', key).update(`${input.webhookId}.${timestamp}.${input.body}`, 'utf8').digest('base64');
    headers['webhook-signature'] = `v1,${signature}`;
  }
  return headers;
}
