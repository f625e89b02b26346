import { adminKey } from './auth.js';
import { ParleyApiError, toApiError } from '../../client/api-error.js';

/**
 * Uploads a file as multipart/form-data (field `file`) with XMLHttpRequest, the one browser API
 * that reports upload progress. `onProgress` gets 0..1.
 */
export function uploadFile<T>(path: string, file: File, onProgress: (fraction: number) => void): Promise<T> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', path);
    const key = adminKey();
    if (key !== null) xhr.setRequestHeader('X-API-Key', key);
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(e.loaded / e.total);
    };
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        onProgress(1);
        resolve(JSON.parse(xhr.responseText) as T);
      } else {
        reject(toApiError(xhr.status, xhr.responseText, xhr.getResponseHeader('X-Request-Id')));
      }
    };
    xhr.onerror = () =>
      reject(
        new ParleyApiError(
          0,
          'network_error',
          'the upload did not reach the server; check the connection',
          null,
          undefined,
        ),
      );
    const form = new FormData();
    form.append('file', file, file.name);
    xhr.send(form);
  });
}
