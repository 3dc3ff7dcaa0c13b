import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { BusboyFileBody } from './multipart-file-body.js';

const boundary = 'xyz';
const headers = { 'content-type': `multipart/form-data; boundary=${boundary}` };
const filePart = (field: string, content: string, filename = 'a.jsonl') =>
  `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${filename}"\r\nContent-Type: application/jsonl\r\n\r\n${content}\r\n`;
const textPart = (field: string, value: string) => `--${boundary}\r\nContent-Disposition: form-data; name="${field}"\r\n\r\n${value}\r\n`;
const bodyOf = (...parts: string[]) => Readable.from([Buffer.from(`${parts.join('')}--${boundary}--\r\n`)]);

async function text(chunks: AsyncIterable<Uint8Array>): Promise<string> {
  const parts: Uint8Array[] = [];
  for await (const chunk of chunks) parts.push(chunk);
  return Buffer.concat(parts).toString('utf8');
}

describe('BusboyFileBody', () => {
  it('streams the file part of the field, ignoring text fields', async () => {
    const body = new BusboyFileBody(headers, bodyOf(textPart('purpose', 'batch'), filePart('file', 'line 1\nline 2')), { field: 'file', maxFileBytes: 100 });
    const file = await body.file();
    expect(file).toMatchObject({ filename: 'a.jsonl', contentType: 'application/jsonl' });
    expect(await text(file.chunks)).toBe('line 1\nline 2');
    await expect(body.end()).resolves.toBeUndefined();
  });

  it('refuses a file in another field, a body without a file and a second file', async () => {
    await expect(new BusboyFileBody(headers, bodyOf(filePart('data', 'x')), { field: 'file', maxFileBytes: 100 }).file()).rejects.toThrow('form field "file", not "data"');
    await expect(new BusboyFileBody(headers, bodyOf(textPart('file', 'x')), { field: 'file', maxFileBytes: 100 }).file()).rejects.toThrow('holds no file');
    const two = new BusboyFileBody(headers, bodyOf(filePart('file', 'a'), filePart('file', 'b', 'b.jsonl')), { field: 'file', maxFileBytes: 100 });
    expect(await text((await two.file()).chunks)).toBe('a');
    await expect(two.end()).rejects.toThrow('holds 2 files');
  });

  it('takes a file of exactly the cap and fails the iteration of a larger one with reason BODY_TOO_LARGE', async () => {
    const exact = new BusboyFileBody(headers, bodyOf(filePart('file', '12345')), { field: 'file', maxFileBytes: 5 });
    expect(await text((await exact.file()).chunks)).toBe('12345');
    const over = new BusboyFileBody(headers, bodyOf(filePart('file', '123456')), { field: 'file', maxFileBytes: 5 });
    await expect(text((await over.file()).chunks)).rejects.toMatchObject({ reason: 'BODY_TOO_LARGE', code: 'INVALID_ARGUMENT' });
    await expect(over.end()).resolves.toBeUndefined();
  });

  it('refuses a header without boundary and a body cut short with INVALID_ARGUMENT', async () => {
    expect(() => new BusboyFileBody({ 'content-type': 'multipart/form-data' }, Readable.from([]), { field: 'file', maxFileBytes: 5 })).toThrow('malformed multipart/form-data header');
    const cut = new BusboyFileBody(headers, Readable.from([Buffer.from(filePart('file', 'abc').slice(0, -2))]), { field: 'file', maxFileBytes: 100 });
    // The part's bytes may all arrive before busboy sees the missing end: `end()` is what fails.
    await text((await cut.file()).chunks).catch(() => '');
    await expect(cut.end()).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('malformed multipart/form-data body') });
  });

  it('reads a body the handler left unread once discarded', async () => {
    const body = new BusboyFileBody(headers, bodyOf(filePart('file', 'x'.repeat(200_000))), { field: 'file', maxFileBytes: 1_000_000 });
    await body.file();
    body.discard();
    await expect(body.end()).resolves.toBeUndefined();
  });
});
