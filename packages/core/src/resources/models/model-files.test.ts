import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MemoryStorage } from '../../testing/index.js';
import { principalContext } from '../../testing/test-gateway.js';
import { GatewayError } from '../../errors/index.js';
import { deleteBlobsUnder } from '../../blobs/delete-under.js';
import { checkModelFileName, listModelFiles, modelFileKey, modelFilesPrefix, readModelFile } from './model-files.js';

const model = 'accounts/acme/models/tiny';
const ctx = principalContext('acme', 'admin');

function rejection(fileName: string): GatewayError {
  try {
    checkModelFileName(fileName);
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error(`${fileName} was accepted`);
}

describe('model file names', () => {
  it.each(['config.json', 'model-00001-of-00002.safetensors', 'tokenizer/tokenizer.json', 'a/b/c.bin', '.gitattributes', 'x..y'])('accepts %s', (name) => {
    expect(checkModelFileName(name)).toBe(name);
    expect(modelFileKey(model, name)).toBe(`models/acme/tiny/${name}`);
  });

  it.each([
    ['', 'empty'],
    ['../secret', '".." segments'],
    ['a/../../b', '".." segments'],
    ['./config.json', '".." segments'],
    ['/etc/passwd', 'relative path'],
    ['a//b', 'empty path segment'],
    ['a/', 'empty path segment'],
    ['a\\b', 'not "\\"'],
    ['sp ace.json', 'letters, digits'],
    ['nul\u0000.json', 'letters, digits'],
    ['x'.repeat(600), 'longer than'],
    ['a/b/c/d/e/f/g/h/i', 'more than 8'],
  ])('refuses %j with a 400 naming the file', (name, why) => {
    const error = rejection(name);
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.reason).toBe('BAD_FILE_NAME');
    expect(error.message).toContain(JSON.stringify(name.length > 120 ? `${name.slice(0, 120)}…` : name));
    expect(error.message).toContain(why);
  });

  it('no accepted name leaves the model prefix', () => {
    fc.assert(fc.property(fc.string({ maxLength: 40 }), (name) => {
      let key: string;
      try {
        key = modelFileKey(model, name);
      } catch (error) {
        expect(error).toBeInstanceOf(GatewayError);
        return;
      }
      const normalized = new URL(key, 'file:///root/').pathname;
      expect(normalized.startsWith(`/root/${modelFilesPrefix(model)}`)).toBe(true);
      expect(normalized.length).toBeGreaterThan(`/root/${modelFilesPrefix(model)}`.length);
    }), { numRuns: 500 });
  });
});

describe('stored files', () => {
  it('lists, reads and deletes a model\'s files, and only its own', async () => {
    const blobs = new MemoryStorage().blobs;
    await blobs.put(ctx, modelFileKey(model, 'config.json'), new TextEncoder().encode('{}'), 'application/json');
    await blobs.put(ctx, modelFileKey(model, 'sub/w.safetensors'), new Uint8Array([1, 2, 3]), 'application/octet-stream');
    await blobs.put(ctx, modelFileKey('accounts/acme/models/tiny2', 'config.json'), new Uint8Array([9]), 'application/json');
    expect(await listModelFiles(ctx, blobs, model)).toEqual(['config.json', 'sub/w.safetensors']);
    expect((await readModelFile(ctx, blobs, model, 'sub/w.safetensors'))?.bytes).toEqual(new Uint8Array([1, 2, 3]));
    expect(await readModelFile(ctx, blobs, model, 'absent.json')).toBeUndefined();
    expect(await deleteBlobsUnder(ctx, blobs, modelFilesPrefix(model))).toBe(2);
    expect(await listModelFiles(ctx, blobs, model)).toEqual([]);
    expect(await listModelFiles(ctx, blobs, 'accounts/acme/models/tiny2')).toEqual(['config.json']);
  });
});
