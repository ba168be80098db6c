// Supabase Storage at /storage/v1: object bytes on disk under settings.storageDir, their
// metadata in storage.objects, written and read as the caller so the migrations' RLS
// policies decide (wire reference §5). Paths are dispatched by hand because object names
// contain slashes and every segment must be decoded and checked before it touches the disk.
// The route groups live beside this file as storage-api splits its own: bucket, object,
// upload, signed, list and render, over one shared kit (shared.ts).
import { Hono, type Context } from 'hono';

import type { DevstackContext } from '../context';
import { bucketRoute } from './bucket-routes';
import { fromDatabaseError, invalidRequest, objectNotFound, StorageError } from './errors';
import { STORAGE_SECURITY_HEADERS } from './content-type';
import { list, listV2 } from './list-routes';
import { download, downloadPublic, info, moveOrCopy, removeMany } from './object-routes';
import { renderRoute } from './render-routes';
import {
  checkName,
  createStorageKit,
  RouteNotFound,
  routeNotFound,
  type StorageKit,
} from './shared';
import { serveSigned, signMany, signOne, signUpload, uploadSigned } from './signed-routes';
import { storeUpload } from './upload';

async function upload(
  kit: StorageKit,
  c: Context,
  bucketId: string,
  name: string,
  method: 'POST' | 'PUT',
) {
  const caller = await kit.requireCaller(c);
  const id = await storeUpload(kit, c, {
    bucketId,
    name,
    caller,
    owner: caller.claims.sub,
    mode: method === 'PUT' ? 'update' : c.req.header('x-upsert') === 'true' ? 'upsert' : 'insert',
    operation: method === 'PUT' ? 'storage.object.update' : 'storage.object.upload',
  });
  return c.json({ Id: id, Key: `${bucketId}/${name}` });
}

async function objectRoute(kit: StorageKit, c: Context, rest: string[]) {
  const method = c.req.method;
  const read = method === 'GET' || method === 'HEAD';
  const [first, second, ...more] = rest;
  if (first === undefined) throw routeNotFound();
  const nameOf = (parts: string[]) => parts.join('/');
  if (first === 'list' && second !== undefined && method === 'POST' && more.length === 0) {
    return list(kit, c, second);
  }
  if (first === 'list-v2' && second !== undefined && method === 'POST' && more.length === 0) {
    return listV2(kit, c, second);
  }
  if ((first === 'move' || first === 'copy') && second === undefined && method === 'POST') {
    return moveOrCopy(kit, c, first);
  }
  // /object/upload/sign/:bucket/*: storage-api's signed upload; "upload" is no bucket here.
  if (first === 'upload' && second === 'sign') {
    const [bucket, ...name] = more;
    if (bucket !== undefined && name.length > 0) {
      if (method === 'POST') return signUpload(kit, c, bucket, nameOf(name));
      if (method === 'PUT') return uploadSigned(kit, c, bucket, nameOf(name));
    }
    throw routeNotFound();
  }
  if (first === 'sign' && second !== undefined) {
    if (more.length === 0 && method === 'POST') return signMany(kit, c, second);
    if (more.length > 0 && method === 'POST') return signOne(kit, c, second, nameOf(more));
    if (more.length > 0 && read) return serveSigned(kit, c, second, nameOf(more));
  }
  if (first === 'public' && second !== undefined && more.length > 0 && read) {
    return downloadPublic(kit, c, second, nameOf(more));
  }
  if (first === 'authenticated' && second !== undefined && more.length > 0 && read) {
    return download(kit, c, second, nameOf(more));
  }
  if (first === 'info' && second !== undefined && more.length > 0 && method === 'GET') {
    const [bucket, ...name] =
      second === 'authenticated' || second === 'public' ? more : [second, ...more];
    if (bucket !== undefined && name.length > 0) return info(kit, c, bucket, nameOf(name));
  }
  if (second === undefined) {
    if (method === 'DELETE') {
      const body = await kit.readJson(c);
      return c.json(await removeMany(kit, c, first, body.prefixes));
    }
    throw routeNotFound();
  }
  const name = nameOf([second, ...more]);
  if (method === 'POST' || method === 'PUT') return upload(kit, c, first, name, method);
  if (read) return download(kit, c, first, name);
  if (method === 'DELETE') {
    checkName(name);
    const rows = await removeMany(kit, c, first, [name]);
    if (rows.length === 0) throw objectNotFound();
    return c.json({ message: 'Successfully deleted' });
  }
  throw routeNotFound();
}

export function storageRoutes(ctx: DevstackContext): Hono {
  const app = new Hono();
  const kit = createStorageKit(ctx);

  // On every answer, errors included: a browser must never guess a type for storage bytes.
  app.use('*', async (c, next) => {
    await next();
    for (const [name, value] of Object.entries(STORAGE_SECURITY_HEADERS)) {
      c.res.headers.set(name, value);
    }
  });

  app.all('*', async (c) => {
    const url = new URL(c.req.url);
    const after = url.pathname.replace(/^.*?\/storage\/v1(?=\/|$)/, '');
    try {
      let segments: string[];
      try {
        segments = after
          .split('/')
          .slice(1)
          .map((segment) => decodeURIComponent(segment));
      } catch {
        throw invalidRequest('The path is not valid URI encoding');
      }
      const [service, ...rest] = segments;
      if (service === 'bucket') return await bucketRoute(kit, c, rest);
      if (service === 'object') return await objectRoute(kit, c, rest);
      if (service === 'render') return renderRoute();
      throw routeNotFound();
    } catch (error) {
      if (error instanceof RouteNotFound) {
        // The router's answer names the request as storage-api saw it (behind the gateway).
        return c.json(
          {
            statusCode: '404',
            error: 'Not Found',
            message: `Route ${c.req.method}:${after}${url.search} not found`,
            code: 'InvalidRequest',
          },
          404,
        );
      }
      const known = error instanceof StorageError ? error : fromDatabaseError(error);
      if (known) return c.json(known.body(), 400);
      console.error('[devstack storage] unexpected error:', error);
      return c.json(
        {
          statusCode: '500',
          code: 'InternalError',
          error: 'internal',
          message: 'Internal Server Error',
        },
        500,
      );
    }
  });

  return app;
}
