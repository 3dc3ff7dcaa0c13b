import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { account, startHarness, type Harness } from './harness.js';
import { expectRangeRequests } from './range-requests.js';

let h: Harness;
const v1 = `/v1/accounts/${account}`;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h.close());

const rows = [
  { messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }] },
  { messages: [{ role: 'user', content: 'and?' }] },
  { messages: [{ role: 'user', content: 'bye' }] },
];
const jsonl = rows.map((r) => JSON.stringify(r)).join('\n') + '\n';

async function createDataset(id: string): Promise<void> {
  const r = await h.call('POST', `${v1}/datasets`, { body: { datasetId: id, dataset: { format: 'CHAT', displayName: id } } });
  expect(r.status).toBe(200);
  expect(r.body.state).toBe('UPLOADING');
}

async function uploadUrl(id: string, file: string, size: number): Promise<string> {
  const r = await h.call<{ filenameToSignedUrls: Record<string, string> }>('POST', `${v1}/datasets/${id}:getUploadEndpoint`, { body: { filenameToSize: { [file]: String(size) } } });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.filenameToSignedUrls[file]!;
}

describe('dataset upload flow over HTTP', () => {
  it('announce → PUT to the signed URL → validate → READY with exampleCount → download', async () => {
    await createDataset('chats-up');
    const url = await uploadUrl('chats-up', 'train.jsonl', Buffer.byteLength(jsonl));
    expect(url.startsWith(h.url)).toBe(true);
    const put = await fetch(url, { method: 'PUT', body: jsonl, headers: { 'content-type': 'application/jsonl' } });
    expect(put.status).toBe(200);
    const validated = await h.call('POST', `${v1}/datasets/chats-up:validateUpload`, { body: {} });
    expect(validated.status, JSON.stringify(validated.body)).toBe(200);
    expect(validated.body).toEqual({});
    const got = await h.call('GET', `${v1}/datasets/chats-up`);
    expect(got.body).toMatchObject({ state: 'READY', exampleCount: '3' });
    const download = await h.call<{ filenameToSignedUrls: Record<string, string> }>('POST', `${v1}/datasets/chats-up:getDownloadEndpoint`, { body: {} });
    expect(download.status).toBe(200);
    const file = await fetch(download.body.filenameToSignedUrls['train.jsonl']!);
    expect(file.status).toBe(200);
    expect(await file.text()).toBe(jsonl);
  });

  it('streams a signed upload without Content-Length: too long or too short is 400 and keeps the file stored before', async () => {
    await createDataset('chunked-up');
    const bytes = Uint8Array.from({ length: 300_000 }, (_, i) => (i * 13) % 256);
    const url = await uploadUrl('chunked-up', 'weights.bin', bytes.byteLength);
    // A ReadableStream body goes out chunked: the gateway learns the size only as the bytes arrive.
    const chunked = (data: Uint8Array) => fetch(url, {
      method: 'PUT', duplex: 'half', headers: { 'content-type': 'application/octet-stream' },
      body: new ReadableStream({ start(controller) { for (let at = 0; at < data.byteLength; at += 65_536) controller.enqueue(data.slice(at, at + 65_536)); controller.close(); } }),
    } as RequestInit);
    expect((await chunked(bytes)).status).toBe(200);
    const longer = new Uint8Array(bytes.byteLength + 1).fill(7);
    expect((await chunked(longer)).status).toBe(400);
    expect((await chunked(new Uint8Array(10).fill(7))).status).toBe(400);
    expect((await h.call('POST', `${v1}/datasets/chunked-up:validateUpload`, { body: {} })).status).toBe(200);
    const download = await h.call<{ filenameToSignedUrls: Record<string, string> }>('POST', `${v1}/datasets/chunked-up:getDownloadEndpoint`, { body: {} });
    expect(new Uint8Array(await (await fetch(download.body.filenameToSignedUrls['weights.bin']!)).arrayBuffer())).toEqual(bytes);
  });

  it('keeps binary files byte for byte, with their media type, through upload and download', async () => {
    await createDataset('bytes-up');
    const bytes = Uint8Array.from({ length: 4096 }, (_, i) => (i * 7 + 3) % 256);
    const url = await uploadUrl('bytes-up', 'weights.bin', bytes.byteLength);
    const put = await fetch(url, { method: 'PUT', body: bytes, headers: { 'content-type': 'application/octet-stream' } });
    expect(put.status).toBe(200);
    expect(await put.json()).toEqual({});
    expect(put.headers.get('x-request-id')).toBeTruthy();
    expect((await h.call('POST', `${v1}/datasets/bytes-up:validateUpload`, { body: {} })).status).toBe(200);
    const download = await h.call<{ filenameToSignedUrls: Record<string, string> }>('POST', `${v1}/datasets/bytes-up:getDownloadEndpoint`, { body: {} });
    const file = await fetch(download.body.filenameToSignedUrls['weights.bin']!);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('application/octet-stream');
    // Streamed from the blob store with its length and the SHA-256 recorded at upload.
    expect(file.headers.get('content-length')).toBe('4096');
    expect(file.headers.get('x-berth-sha256')).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(new Uint8Array(await file.arrayBuffer())).toEqual(bytes);
    await expectRangeRequests(download.body.filenameToSignedUrls['weights.bin']!, bytes);
    const noSignature = await fetch(download.body.filenameToSignedUrls['weights.bin']!.replace(/&signature=[^&]+/, ''));
    expect(noSignature.status).toBe(400);
  });

  it('refuses forged signatures, wrong sizes, early validation and bad rows with 4xx', async () => {
    await createDataset('chats-bad');
    const early = await h.call('POST', `${v1}/datasets/chats-bad:validateUpload`, { body: {} });
    expect(early.status).toBe(400);
    expect(early.body.code).toBe(9);
    const bad = '{"messages": []}\n{not json}\n';
    const url = await uploadUrl('chats-bad', 'rows.jsonl', Buffer.byteLength(bad));
    const forged = url.replace(/signature=[^&]+/, 'signature=AAAA');
    expect((await fetch(forged, { method: 'PUT', body: bad })).status).toBe(403);
    expect((await fetch(url.replace('method=PUT', 'method=GET'), { method: 'PUT', body: bad })).status).toBe(400);
    expect((await fetch(url, { method: 'PUT', body: `${bad}extra` })).status).toBe(400);
    expect((await fetch(url, { method: 'PUT', body: bad })).status).toBe(200);
    const invalid = await h.call('POST', `${v1}/datasets/chats-bad:validateUpload`, { body: {} });
    expect(invalid.status).toBe(400);
    expect(invalid.body.message).toContain('rows.jsonl line 2');
    expect((await h.call('GET', `${v1}/datasets/chats-bad`)).body.state).toBe('UPLOADING');
  });

  it('checks the announcement: file names, sizes, state and roles', async () => {
    await createDataset('chats-ann');
    const slash = await h.call('POST', `${v1}/datasets/chats-ann:getUploadEndpoint`, { body: { filenameToSize: { '../etc/passwd': '10' } } });
    expect(slash.status).toBe(400);
    const zero = await h.call('POST', `${v1}/datasets/chats-ann:getUploadEndpoint`, { body: { filenameToSize: { 'a.jsonl': '0' } } });
    expect(zero.status).toBe(400);
    const unknown = await h.call('POST', `${v1}/datasets/chats-ann:getUploadEndpoint`, { body: { filenameToSize: {}, extra: 1 } });
    expect(unknown.status).toBe(400);
    const missing = await h.call('POST', `${v1}/datasets/nope:getUploadEndpoint`, { body: { filenameToSize: { 'a.jsonl': '5' } } });
    expect(missing.status).toBe(404);
    const noAuth = await h.call('POST', `${v1}/datasets/chats-ann:getUploadEndpoint`, { key: null, body: { filenameToSize: { 'a.jsonl': '5' } } });
    expect(noAuth.status).toBe(401);
    const download = await h.call('POST', `${v1}/datasets/chats-ann:getDownloadEndpoint`, { body: {} });
    expect(download.status).toBe(400);
  });
});
