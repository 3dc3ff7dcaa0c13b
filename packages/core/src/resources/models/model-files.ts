import { invalidArgument } from '../../errors/index.js';
import type { RequestContext } from '../../kernel/request-context.js';
import { parseResourceName } from '../../names/resource-name.js';
import type { BlobObject, BlobStore } from '../../ports/storage.js';

/**
 * Where a model's files live in the blob store, and which file names a model may hold.
 *
 * **Layout.** The files of model `accounts/<account>/models/<modelId>` are the blobs
 * `models/<account>/<modelId>/<fileName>`, one blob per file, `<fileName>` exactly as the client
 * announced it in `:getUploadEndpoint` (`filenameToSize`), e.g. `models/acme/llama-tiny/config.json` or
 * `models/acme/llama-tiny/tokenizer/tokenizer.json`. Nothing else is stored under a model's prefix: the
 * upload plan lives in the key-value store, so listing the prefix lists exactly the model's files.
 * A file is stored there only by the upload flow (`ModelFileService`), which streams it with its size
 * enforced; a model is READY with files only after `:validateUpload` checked them all, and the files of
 * a READY model do not change (replicas and add-on loaders read them).
 *
 * **File names** are relative paths of 1 to {@link maxModelFileNameLength} characters: segments separated
 * by `/`, each 1–200 of letters, digits, `.`, `_`, `-`, not `.` or `..`; no leading or trailing `/`, no
 * empty segment, no `\`, at most {@link maxModelFileNameSegments} segments. Anything else is a 400
 * (INVALID_ARGUMENT) naming the file, so a name can never leave the model's prefix.
 */
export const maxModelFileNameLength = 512;
export const maxModelFileNameSegments = 8;

const segmentPattern = /^[A-Za-z0-9._-]{1,200}$/;

/** A file name shown in a message: quoted, cut to 120 characters, control characters escaped. */
export function quotedFileName(fileName: string): string {
  return JSON.stringify(fileName.length > 120 ? `${fileName.slice(0, 120)}…` : fileName);
}

/**
 * Throws INVALID_ARGUMENT naming the file unless `fileName` is a valid model file name (see the module
 * comment); `field` is the request field the name came from. Returns the name.
 */
export function checkModelFileName(fileName: string, field = 'filenameToSize'): string {
  const bad = (why: string) => invalidArgument(`file ${quotedFileName(fileName)}: ${why}`, { field, reason: 'BAD_FILE_NAME' });
  if (fileName.length === 0) throw bad('the file name is empty');
  if (fileName.length > maxModelFileNameLength) throw bad(`the file name is longer than ${maxModelFileNameLength} characters`);
  if (fileName.startsWith('/')) throw bad('the file name must be a relative path (no leading "/")');
  if (fileName.includes('\\')) throw bad('the file name must use "/" between folders, not "\\"');
  const segments = fileName.split('/');
  if (segments.length > maxModelFileNameSegments) throw bad(`the file name has more than ${maxModelFileNameSegments} path segments`);
  for (const segment of segments) {
    if (segment === '') throw bad('the file name has an empty path segment');
    if (segment === '.' || segment === '..') throw bad('the file name must not contain "." or ".." segments');
    if (!segmentPattern.test(segment)) throw bad('each path segment must be 1–200 letters, digits, ".", "_" or "-"');
  }
  return fileName;
}

/** `models/<account>/<modelId>/`: the prefix every file of the model is stored under. */
export function modelFilesPrefix(modelName: string): string {
  const { accountId, id } = parseResourceName(modelName, 'models');
  return `models/${accountId}/${id}/`;
}

/** The blob key of one file of a model; the file name is checked ({@link checkModelFileName}). */
export function modelFileKey(modelName: string, fileName: string): string {
  return `${modelFilesPrefix(modelName)}${checkModelFileName(fileName, 'fileName')}`;
}

/** The names of the files a model holds in the blob store (relative to its prefix), sorted. */
export async function listModelFiles(ctx: RequestContext, blobs: BlobStore, modelName: string): Promise<string[]> {
  const prefix = modelFilesPrefix(modelName);
  const keys = await blobs.list(ctx, prefix);
  return keys.map((key) => key.slice(prefix.length)).filter((name) => name !== '');
}

/** One stored file of a model, or undefined when the model has no such file. */
export async function readModelFile(ctx: RequestContext, blobs: BlobStore, modelName: string, fileName: string): Promise<BlobObject | undefined> {
  return blobs.get(ctx, modelFileKey(modelName, fileName));
}
