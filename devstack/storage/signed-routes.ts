// Signed URLs (storage-api's routes/object/{getSignedURL,getSignedURLs,getSignedObject,
// getSignedUploadURL,uploadSignedObject}.ts). A token is a JWT of the project's signing key
// carrying the object's `bucket/name` and a scope: `download` tokens only read, `upload`
// tokens only write, and neither opens any other object. Image transformation is off (as on
// a project without it), so a `transform` asks for nothing and the URL is a plain object URL.
import type { Context } from 'hono';

import type { Claims } from '../keys';
import { invalidJwt, invalidRequest, StorageError } from './errors';
import { findObjectAsCaller, findObjectAsService, serveFile } from './object-routes';
import {
  checkName,
  isStringArray,
  SERVICE_CALLER,
  storageJwtMessage,
  type StorageKit,
} from './shared';
import { probeUpload, storeUpload } from './upload';

/** storage-api's uploadSignedUrlExpirationTime: a signed upload URL lives two hours. */
const SIGNED_UPLOAD_EXPIRY_SEC = 2 * 60 * 60;
/** The longest expiry a signed download URL may ask for (ten years, in seconds). */
const MAX_SIGNED_URL_EXPIRY_SEC = 10 * 365 * 24 * 3600;

type Scope = 'download' | 'upload';

function expiresInOf(body: Record<string, unknown>): number {
  const expiresIn = Number(body.expiresIn);
  if (!Number.isInteger(expiresIn) || expiresIn < 1 || expiresIn > MAX_SIGNED_URL_EXPIRY_SEC) {
    throw invalidRequest('expiresIn must be a positive integer');
  }
  return expiresIn;
}

async function signedUrl(kit: StorageKit, bucketId: string, name: string, expiresIn: number) {
  const token = await kit.ctx.keys.sign(
    { url: `${bucketId}/${name}`, scope: 'download' },
    expiresIn,
  );
  return `/object/sign/${bucketId}/${name}?token=${token}`;
}

/** The token's claims when it was signed for `scope` on exactly this object; throws otherwise. */
async function verifyObjectToken(
  kit: StorageKit,
  token: string | undefined,
  bucketId: string,
  name: string,
  scope: Scope,
): Promise<Claims> {
  if (!token) throw invalidRequest("querystring must have required property 'token'");
  const verified = await kit.ctx.keys.verify(token);
  if (!verified.ok) throw invalidJwt(storageJwtMessage(verified.kind, verified.message));
  if (verified.claims.scope !== scope) {
    throw new StorageError(
      '400',
      'InvalidSignature',
      'InvalidSignature',
      `Token is not scoped for ${scope}`,
    );
  }
  if (verified.claims.url !== `${bucketId}/${name}`) {
    throw new StorageError(
      '400',
      'InvalidSignature',
      'InvalidSignature',
      'The url do not match the signature',
    );
  }
  return verified.claims;
}

export async function signOne(kit: StorageKit, c: Context, bucketId: string, name: string) {
  const caller = await kit.requireCaller(c);
  checkName(name);
  const expiresIn = expiresInOf(await kit.readJson(c));
  await findObjectAsCaller(kit, c, caller, bucketId, name);
  return c.json({ signedURL: await signedUrl(kit, bucketId, name, expiresIn) });
}

export async function signMany(kit: StorageKit, c: Context, bucketId: string) {
  const caller = await kit.requireCaller(c);
  const body = await kit.readJson(c);
  const expiresIn = expiresInOf(body);
  const paths = body.paths;
  if (!isStringArray(paths) || paths.length === 0 || paths.length > 1000) {
    throw invalidRequest('paths must be an array of 1 to 1000 object names');
  }
  const visible = await kit.asCaller(c, caller, 'storage.object.sign', async (tx) => {
    const result = await tx.query<{ name: string }>(
      `select name from storage.objects where bucket_id = $1 and name in (select jsonb_array_elements_text($2::jsonb))`,
      [bucketId, JSON.stringify(paths)],
    );
    return new Set(result.rows.map((row) => row.name));
  });
  const out = [];
  for (const path of paths) {
    out.push(
      visible.has(path)
        ? { path, signedURL: await signedUrl(kit, bucketId, path, expiresIn), error: null }
        : {
            path,
            signedURL: null,
            error: 'Either the object does not exist or you do not have access to it',
          },
    );
  }
  return c.json(out);
}

export async function serveSigned(kit: StorageKit, c: Context, bucketId: string, name: string) {
  checkName(name);
  await verifyObjectToken(kit, c.req.query('token'), bucketId, name, 'download');
  return serveFile(kit, c, await findObjectAsService(kit, bucketId, name));
}

/** POST /object/upload/sign/:bucket/*: checks the caller may write there, then signs. */
export async function signUpload(kit: StorageKit, c: Context, bucketId: string, name: string) {
  const caller = await kit.requireCaller(c);
  const upsert = c.req.header('x-upsert') === 'true';
  await probeUpload(kit, c, caller, bucketId, name, upsert);
  const owner = typeof caller.claims.sub === 'string' ? caller.claims.sub : undefined;
  const url = `${bucketId}/${name}`;
  const token = await kit.ctx.keys.sign(
    { ...(owner === undefined ? {} : { owner }), url, upsert, scope: 'upload' },
    SIGNED_UPLOAD_EXPIRY_SEC,
  );
  return c.json({ url: `/object/upload/sign/${url}?token=${token}`, token });
}

/** PUT /object/upload/sign/:bucket/*?token=: the token is the only credential. */
export async function uploadSigned(kit: StorageKit, c: Context, bucketId: string, name: string) {
  checkName(name);
  const claims = await verifyObjectToken(kit, c.req.query('token'), bucketId, name, 'upload');
  await storeUpload(kit, c, {
    bucketId,
    name,
    caller: SERVICE_CALLER,
    owner: claims.owner,
    mode: claims.upsert === true ? 'upsert' : 'insert',
    operation: 'storage.object.upload_signed',
  });
  return c.json({ Key: `${bucketId}/${name}` });
}
