import { ApiError, errorMessage } from './api.ts';

/**
 * POSTs `file` as the multipart field `file` with XMLHttpRequest (fetch reports no upload progress),
 * calling `onProgress` with the fraction sent (0..1). Resolves with the parsed answer; rejects with
 * {@link ApiError} on an error status, or an Error when the connection fails.
 */
export function uploadFile(url: string, apiKey: string, file: File, onProgress: (fraction: number) => void): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', url);
    xhr.setRequestHeader('authorization', `Bearer ${apiKey}`);
    xhr.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable && event.total > 0) onProgress(event.loaded / event.total);
    });
    xhr.addEventListener('load', () => {
      let body: unknown;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        body = undefined;
      }
      if (xhr.status >= 200 && xhr.status < 300) {
        onProgress(1);
        resolve(body);
      } else reject(new ApiError(xhr.status, errorMessage(xhr.status, body)));
    });
    xhr.addEventListener('error', () => reject(new Error('The upload failed: the connection was lost.')));
    xhr.addEventListener('abort', () => reject(new Error('The upload was cancelled.')));
    const form = new FormData();
    form.append('file', file, file.name);
    xhr.send(form);
  });
}
