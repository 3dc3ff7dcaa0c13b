import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { webhookHeaders, webhookSigningKey } from './webhook-signature.js';

const body = JSON.stringify({ type: 'image.ready', timestamp: '2026-11-23T18:00:00.000Z', data: { id: 'req-1', status: 'Ready', note: 'ünïcode ✓' } });
const nowSeconds = () => Math.floor(Date.now() / 1000);

describe('webhook signatures (verified with the standardwebhooks package)', () => {
  it('signs with a whsec_ secret as its base64-decoded key', () => {
    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    const headers = webhookHeaders({ webhookId: 'msg_abc', timestampSeconds: nowSeconds(), body }, webhookSigningKey(secret));
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    // The same key read as raw UTF-8 bytes does not verify: the prefix means base64.
    expect(() => new Webhook(secret, { format: 'raw' }).verify(body, headers)).toThrow();
  });

  it('signs with any other secret as its UTF-8 bytes', () => {
    const ascii = 'my-webhook-passphrase';
    const headers = webhookHeaders({ webhookId: 'msg_abc', timestampSeconds: nowSeconds(), body }, webhookSigningKey(ascii));
    expect(new Webhook(ascii, { format: 'raw' }).verify(body, headers)).toEqual(JSON.parse(body));
    // Beyond ASCII the key is the UTF-8 encoding (the library's raw string form takes char codes, so give it bytes).
    const unicode = 'passphrase ünïcode ✓';
    const signed = webhookHeaders({ webhookId: 'msg_abc', timestampSeconds: nowSeconds(), body }, webhookSigningKey(unicode));
    expect(new Webhook(new TextEncoder().encode(unicode), { format: 'raw' }).verify(body, signed)).toEqual(JSON.parse(body));
  });

  it('signs id, timestamp and the exact body: a change to any of them fails verification', () => {
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const key = webhookSigningKey(secret);
    const timestampSeconds = nowSeconds();
    const headers = webhookHeaders({ webhookId: 'msg_abc', timestampSeconds, body }, key);
    const verifier = new Webhook(secret);
    expect(() => verifier.verify(`${body} `, headers)).toThrow();
    expect(() => verifier.verify(body, { ...headers, 'webhook-id': 'msg_other' })).toThrow();
    expect(() => verifier.verify(body, { ...headers, 'webhook-timestamp': String(timestampSeconds - 1) })).toThrow();
    // A fresh timestamp gives a fresh signature for the same id and body.
    const later = webhookHeaders({ webhookId: 'msg_abc', timestampSeconds: timestampSeconds + 7, body }, key);
    expect(later['webhook-signature']).not.toBe(headers['webhook-signature']);
    expect(verifier.verify(body, later)).toEqual(JSON.parse(body));
  });

  it('sends no signature without a secret, and refuses empty or malformed whsec_ secrets', () => {
    const headers = webhookHeaders({ webhookId: 'msg_abc', timestampSeconds: 1_700_000_000.9, body }, undefined);
    expect(headers).toEqual({ 'webhook-id': 'msg_abc', 'webhook-timestamp': '1700000000' });
    for (const bad of ['', 'whsec_', 'whsec_not base64!', 'whsec_abc']) {
      expect(() => webhookSigningKey(bad), bad).toThrow(/webhook secret/);
    }
  });
});
