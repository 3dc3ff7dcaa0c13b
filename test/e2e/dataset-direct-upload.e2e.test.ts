import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { account, adminKey, startHarness, type Harness } from './harness.js';

/** `:upload` over HTTP with real multipart bodies (fetch's FormData), on the memory storage. */
let h: Harness;
const v1 = `/v1/accounts/${account}`;
const cap = 64 * 1024;
beforeAll(async () => {
  h = await startHarness({ config: { maxDatasetFileBytes: cap } });
});
afterAll(async () => h.close());

interface Answer { status: number; body: Record<string, unknown> }

async function upload(id: string, body: FormData | string, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(`${h.url}${v1}/datasets/${id}:upload`, { method: 'POST', body, headers: { authorization: `Bearer ${adminKey}`, ...headers } });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

function form(parts: Array<[field: string, text: string, filename?: string]>): FormData {
  const data = new FormData();
  for (const [field, text, filename] of parts) {
    if (filename === undefined) data.append(field, text);
    else data.append(field, new Blob([text], { type: 'application/jsonl' }), filename);
  }
  return data;
}

async function createDataset(id: string, format = 'FORMAT_UNSPECIFIED'): Promise<void> {
  const r = await h.call('POST', `${v1}/datasets`, { body: { datasetId: id, dataset: { format } } });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
}

async function download(id: string): Promise<Record<string, Uint8Array>> {
  const urls = await h.call<{ filenameToSignedUrls: Record<string, string> }>('POST', `${v1}/datasets/${id}:getDownloadEndpoint`, { body: {} });
  expect(urls.status).toBe(200);
  const files: Record<string, Uint8Array> = {};
  for (const [name, url] of Object.entries(urls.body.filenameToSignedUrls)) files[name] = new Uint8Array(await (await fetch(url)).arrayBuffer());
  return files;
}

const batchRow = (i: number) => JSON.stringify({ custom_id: `row-${i}`, body: { messages: [{ role: 'user', content: `question ${i} é` }], max_tokens: 16 } });

describe('dataset :upload (multipart/form-data, field "file")', () => {
  it('takes a batch file of 300 rows with 7 malformed ones: READY, exampleCount, validationDetails, same bytes back', async () => {
    await createDataset('batch-in');
    const lines = Array.from({ length: 300 }, (_, i) => (i % 43 === 5 ? `{"custom_id":"bad-${i}", "body": ` : batchRow(i)));
    const text = `${lines.join('\n')}\n`;
    const answer = await upload('batch-in', form([['file', text, 'input.jsonl']]));
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body).toEqual({ filenameToSize: { 'input.jsonl': String(Buffer.byteLength(text)) } });
    const dataset = await h.call<Record<string, unknown>>('GET', `${v1}/datasets/batch-in`);
    expect(dataset.body).toMatchObject({ state: 'READY', exampleCount: '293', validationDetails: { malformedRowCount: '7' } });
    const malformed = (dataset.body.validationDetails as { malformedRows: Array<{ line: number; reason: string }> }).malformedRows;
    expect(malformed.map((row) => row.line)).toEqual([6, 49, 92, 135, 178, 221, 264]);
    expect(malformed[0]).toEqual({ filename: 'input.jsonl', line: 6, reason: 'not valid JSON' });
    expect(await download('batch-in')).toEqual({ 'input.jsonl': new Uint8Array(Buffer.from(text)) });
  });

  it('takes a CHAT training file and counts its rows as the signed-URL flow does', async () => {
    await createDataset('chat-in', 'CHAT');
    const text = '{"messages":[{"role":"user","content":"hi"}]}\n\n{"messages":[]}\n';
    const answer = await upload('chat-in', form([['purpose', 'fine-tune'], ['file', text, 'train.jsonl']]));
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect((await h.call('GET', `${v1}/datasets/chat-in`)).body).toMatchObject({ state: 'READY', exampleCount: '2' });
    expect((await h.call('GET', `${v1}/datasets/chat-in`)).body.validationDetails).toBeUndefined();
  });

  it('refuses bad bodies with 4xx in the control-plane format and leaves the dataset UPLOADING and empty', async () => {
    await createDataset('refused', 'CHAT');
    const good = '{"messages":[]}\n';
    const cases: Array<[FormData | string, Record<string, string>, number, string]> = [
      [form([['data', good, 'a.jsonl']]), {}, 400, 'form field "file", not "data"'],
      [form([['file', 'only text']]), {}, 400, 'holds no file'],
      [form([['file', good, 'a.jsonl'], ['file', good, 'b.jsonl']]), {}, 400, 'holds 2 files'],
      [form([['file', `${good}{"prompt":"x"}\n`, 'a.jsonl']]), {}, 400, 'a.jsonl line 2'],
      [form([['file', good, 'bad name.jsonl']]), {}, 400, 'file name'],
      [form([['file', '', 'a.jsonl']]), {}, 400, 'is empty'],
      [JSON.stringify({ file: good }), { 'content-type': 'application/json' }, 400, 'must be multipart/form-data'],
      [good, { 'content-type': 'application/octet-stream' }, 400, 'must be multipart/form-data'],
      ['--x\r\n', { 'content-type': 'multipart/form-data' }, 400, 'multipart'],
      ['--b\r\nContent-Disposition: form-data; name="file"; filename="a.jsonl"\r\n\r\n{"messages":[]}', { 'content-type': 'multipart/form-data; boundary=b' }, 400, 'malformed multipart'],
    ];
    for (const [body, headers, status, message] of cases) {
      const answer = await upload('refused', body, headers);
      expect(answer.status, `${message}: ${JSON.stringify(answer.body)}`).toBe(status);
      expect(answer.body).toMatchObject({ code: 3 });
      expect(String(answer.body.message)).toContain(message);
    }
    expect((await h.call('GET', `${v1}/datasets/refused`)).body.state).toBe('UPLOADING');
    // Nothing was kept: a good upload afterwards holds only its own file.
    expect((await upload('refused', form([['file', good, 'ok.jsonl']]))).status).toBe(200);
    expect(Object.keys(await download('refused'))).toEqual(['ok.jsonl']);
  });

  it('answers 404 for an unknown dataset, 401 without a key, 400 on a READY dataset', async () => {
    const good = form([['file', '{"messages":[]}\n', 'a.jsonl']]);
    expect((await upload('nope', good)).status).toBe(404);
    const noKey = await fetch(`${h.url}${v1}/datasets/nope:upload`, { method: 'POST', body: good });
    expect(noKey.status).toBe(401);
    await createDataset('twice');
    expect((await upload('twice', form([['file', '{"a":1}\n', 'a.jsonl']]))).status).toBe(200);
    const again = await upload('twice', form([['file', '{"a":1}\n', 'a.jsonl']]));
    expect(again).toMatchObject({ status: 400, body: { code: 9 } });
  });

  it('takes a file of exactly the cap and refuses a larger one with 413, storing nothing', async () => {
    await createDataset('capped');
    const line = `${JSON.stringify({ pad: 'x'.repeat(1000) })}\n`;
    const over = line.repeat(Math.ceil((cap + 1) / line.length));
    const refused = await upload('capped', form([['file', over, 'big.jsonl']]));
    expect(refused.status, JSON.stringify(refused.body)).toBe(413);
    expect(refused.body).toMatchObject({ code: 3 });
    expect(String(refused.body.message)).toContain(`${cap} bytes`);
    expect((await h.call('GET', `${v1}/datasets/capped`)).body.state).toBe('UPLOADING');
    const exact = `${line.repeat(Math.floor(cap / line.length) - 1)}${JSON.stringify({ pad: '' })}`;
    const fill = cap - Buffer.byteLength(exact) - 1;
    const atCap = `${exact}\n${' '.repeat(fill)}`;
    expect(Buffer.byteLength(atCap)).toBe(cap);
    const taken = await upload('capped', form([['file', atCap, 'big.jsonl']]));
    expect(taken.status, JSON.stringify(taken.body)).toBe(200);
    expect(Object.keys(await download('capped'))).toEqual(['big.jsonl']);
  });

  it('survives a client that goes away mid-file: nothing kept, the dataset still UPLOADING, the gateway still answering', async () => {
    await createDataset('gone');
    const controller = new AbortController();
    const encoder = new TextEncoder();
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(stream) {
        if (sent === 0) stream.enqueue(encoder.encode('--b\r\nContent-Disposition: form-data; name="file"; filename="partial.jsonl"\r\n\r\n'));
        else if (sent < 8) stream.enqueue(encoder.encode(`${batchRow(sent)}\n`.repeat(20)));
        else {
          controller.abort();
          stream.close();
        }
        sent += 1;
        await new Promise((resolve) => setTimeout(resolve, 20));
      },
    });
    const request = fetch(`${h.url}${v1}/datasets/gone:upload`, {
      method: 'POST', body, duplex: 'half', signal: controller.signal,
      headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'multipart/form-data; boundary=b' },
    } as RequestInit);
    await expect(request).rejects.toThrow();
    // The server sees the connection close; give it a moment to finish the request's clean-up.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await h.call('GET', `${v1}/datasets/gone`)).body.state).toBe('UPLOADING');
    expect((await upload('gone', form([['file', `${batchRow(1)}\n`, 'a.jsonl']]))).status).toBe(200);
    expect(Object.keys(await download('gone'))).toEqual(['a.jsonl']);
  });

  it('documents :upload as a multipart/form-data operation in the OpenAPI document', async () => {
    const doc = (await h.call<{ paths: Record<string, Record<string, { requestBody?: { content: Record<string, unknown> } }>> }>('GET', '/openapi.json')).body;
    expect(Object.keys(doc.paths[`/v1/accounts/{account_id}/datasets/{dataset_id}:upload`]!.post!.requestBody!.content)).toEqual(['multipart/form-data']);
  });
});
