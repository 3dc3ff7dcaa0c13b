import { createHash } from 'node:crypto';
import { expect } from 'vitest';

async function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; bytes: Uint8Array }> {
  const response = await fetch(url, { headers });
  return { status: response.status, headers: response.headers, bytes: new Uint8Array(await response.arrayBuffer()) };
}

/**
 * A signed download URL of a stored file answers HTTP range requests (docs/blob-stores.md, "Downloads and
 * ranges"): one range as 206 with `Content-Range`, a range past the end as 416 with `bytes *` over the size,
 * several ranges or an invalid one as the whole file, `If-Range` honoured only for the current ETag.
 * `bytes` must hold at least 32 bytes.
 */
export async function expectRangeRequests(url: string, bytes: Uint8Array): Promise<void> {
  const size = bytes.byteLength;
  const etag = `"${createHash('sha256').update(bytes).digest('hex')}"`;
  const whole = await get(url);
  expect(whole.status).toBe(200);
  expect(whole.headers.get('accept-ranges')).toBe('bytes');
  expect(whole.headers.get('etag')).toBe(etag);
  expect(whole.bytes).toEqual(bytes);

  const parts: [string, number, number][] = [
    ['bytes=10-19', 10, 19],
    ['bytes=16-', 16, size - 1],
    ['bytes=-5', size - 5, size - 1],
    [`bytes=3-${size + 1000}`, 3, size - 1],
    [`bytes=-${size + 7}`, 0, size - 1],
  ];
  for (const [range, first, last] of parts) {
    const part = await get(url, { range });
    expect(part.status, range).toBe(206);
    expect(part.headers.get('content-range'), range).toBe(`bytes ${first}-${last}/${size}`);
    expect(part.headers.get('content-length'), range).toBe(String(last - first + 1));
    expect(part.headers.get('etag'), range).toBe(etag);
    expect(part.bytes, range).toEqual(bytes.subarray(first, last + 1));
  }

  for (const range of [`bytes=${size}-`, `bytes=${size + 5}-${size + 9}`, 'bytes=-0']) {
    const refused = await get(url, { range });
    expect(refused.status, range).toBe(416);
    expect(refused.headers.get('content-range'), range).toBe(`bytes */${size}`);
    expect(JSON.parse(new TextDecoder().decode(refused.bytes)), range).toMatchObject({ code: 11 });
  }

  // Answered whole: several ranges (not served as multipart), an invalid range, another unit.
  for (const range of ['bytes=0-1,4-5', 'bytes=9-2', 'bytes=abc', 'items=0-3']) {
    const answer = await get(url, { range });
    expect(answer.status, range).toBe(200);
    expect(answer.bytes, range).toEqual(bytes);
  }

  const current = await get(url, { range: 'bytes=0-3', 'if-range': etag });
  expect([current.status, current.bytes]).toEqual([206, bytes.subarray(0, 4)]);
  const stale = await get(url, { range: 'bytes=0-3', 'if-range': '"0000"' });
  expect([stale.status, stale.bytes.byteLength]).toEqual([200, size]);
  const dated = await get(url, { range: 'bytes=0-3', 'if-range': 'Tue, 24 Nov 2026 00:00:00 GMT' });
  expect(dated.status).toBe(200);
}
