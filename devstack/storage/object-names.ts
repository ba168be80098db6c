// Object names as hosted storage accepts them, and where their bytes live on disk. A name
// must never escape the bucket's folder, so `..`, absolute paths and control characters are
// refused before any file system call.
import { join } from 'node:path';

import { bucketNotFound, invalidKey } from './errors';

/** Hosted storage's limit on a key (bytes of UTF-8). */
const MAX_NAME_BYTES = 1024;

// eslint-disable-next-line no-control-regex -- control characters are exactly what we refuse
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;

export function isValidObjectName(name: string): boolean {
  if (name.length === 0 || Buffer.byteLength(name, 'utf8') > MAX_NAME_BYTES) return false;
  if (name.startsWith('/') || name.includes('\\') || CONTROL_CHARS.test(name)) return false;
  return name.split('/').every((segment) => segment !== '..' && segment !== '.');
}

/** Bucket ids are a single safe path segment. */
export function isValidBucketId(id: string): boolean {
  return /^[A-Za-z0-9_.-]{1,100}$/.test(id) && id !== '.' && id !== '..';
}

/** The file of an object; throws rather than return a path outside the bucket's folder. */
export function objectFilePath(storageDir: string, bucket: string, name: string): string {
  if (!isValidBucketId(bucket)) throw bucketNotFound();
  if (!isValidObjectName(name)) throw invalidKey(name);
  return join(storageDir, bucket, ...name.split('/'));
}
