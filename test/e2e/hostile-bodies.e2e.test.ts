import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { account, startHarness, type Harness } from './harness.js';

/**
 * Issue 9, defect #1: a stranger's body is never read before its credential is checked, and what an
 * authenticated caller sends is bounded before it is parsed (413 in the surface's format).
 */
let h: Harness;
const v1 = `/v1/accounts/${account}`;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h.close());

/** ~`keys` object members; `broken` cuts the closing brace so the body is not valid JSON. */
function manyKeys(keys: number, broken = false): string {
  const parts: string[] = [];
  for (let i = 0; i < keys; i += 1) parts.push(`"k${i}":1`);
  return `{${parts.join(',')}${broken ? '' : '}'}`;
}

describe('authentication comes before the body', () => {
  // Invalid JSON: were the body parsed first, the answer would be 400 INVALID_JSON instead of 401.
  const hostile = manyKeys(1_000_000, true);

  it('answers 401 to a ~10 MB body without a key, without parsing it', async () => {
    expect(hostile.length).toBeGreaterThan(9_000_000);
    const response = await h.call('POST', `${v1}/models`, { raw: hostile, key: null });
    expect(response.status).toBe(401);
    expect(response.body).toMatchObject({ code: 16, details: [] });
  });

  it('answers 401 with an unknown key, on the control plane and the inference surface', async () => {
    const control = await h.call('POST', `${v1}/models`, { raw: hostile, key: 'not-a-key' });
    expect(control.status).toBe(401);
    expect(control.body).toMatchObject({ code: 16 });
    const inference = await h.call('POST', '/inference/v1/chat/completions', { raw: hostile, key: 'not-a-key' });
    expect(inference.status).toBe(401);
    expect(inference.body).toMatchObject({ error: { type: 'authentication_error' } });
  });

  it('answers 404 to an unknown path without parsing its body', async () => {
    const response = await h.call('POST', '/v1/nothing-here', { raw: hostile, key: null });
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ code: 5 });
  });
});

describe('bounded parsing for authenticated callers', () => {
  it('answers 413 in the control-plane format to a body with too many keys', async () => {
    const response = await h.call('POST', `${v1}/models`, { raw: manyKeys(500_000) });
    expect(response.status).toBe(413);
    expect(response.body).toMatchObject({ code: 3, details: [] });
    expect((response.body as { message: string }).message).toMatch(/object keys/);
  });

  it('answers 413 in the inference format to a body with too many keys', async () => {
    const response = await h.call('POST', '/inference/v1/chat/completions', { raw: manyKeys(20_000) });
    expect(response.status).toBe(413);
    expect(response.body).toMatchObject({ error: { type: 'invalid_request_error', code: 'body_too_large' } });
  });

  it('answers 413 to a body above the byte limit', async () => {
    const response = await h.call('POST', `${v1}/models`, { raw: JSON.stringify({ model: { displayName: 'x'.repeat(11 * 1024 * 1024) } }) });
    expect(response.status).toBe(413);
    expect(response.body).toMatchObject({ code: 3, details: [] });
  });

  it('answers 413 to a control-plane string above 64 Ki characters, and lets long inference strings through to validation', async () => {
    const control = await h.call('POST', `${v1}/models`, { body: { modelId: 'm', model: { displayName: 'x'.repeat(70_000) } } });
    expect(control.status).toBe(413);
    expect((control.body as { message: string }).message).toMatch(/string longer than 65536/);
    // The long prompt passes the parser: the request fails later, on the unknown model.
    const inference = await h.call('POST', '/inference/v1/chat/completions', { body: { model: 'accounts/acme/models/m', messages: [{ role: 'user', content: 'x'.repeat(200_000) }] } });
    expect(inference.status).toBe(404);
    expect(inference.body).toMatchObject({ error: { type: 'not_found_error', message: 'accounts/acme/models/m not found' } });
  });

  it('still answers 400 JSON_TOO_DEEP to deep nesting', async () => {
    const response = await h.call('POST', `${v1}/models`, { raw: `${'['.repeat(100)}${']'.repeat(100)}` });
    expect(response.status).toBe(400);
    expect(JSON.stringify(response.body)).toMatch(/deeper than/);
  });
});
