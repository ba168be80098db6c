// GoTrue's rules for an OAuth client's registration and update (oauthserver/service.go): how
// a body is decoded (Go's json.Decoder into a params struct) and what each field must be. Kept
// apart from oauth-clients.ts, which stores clients and answers the routes.
import type { Context } from 'hono';

import { isPlainObject, parseJsonText } from '../json';

import { AuthApiError } from './errors';

export type ClientType = 'public' | 'confidential';

export const AUTH_METHODS = ['none', 'client_secret_basic', 'client_secret_post'] as const;
const DANGEROUS_SCHEMES = ['javascript', 'data', 'file', 'vbscript', 'about', 'blob'];
const MAX_REDIRECT_URIS = 10;

export const validation = (message: string) => new AuthApiError(400, 'validation_failed', message);
export const badJson = () => new AuthApiError(400, 'bad_json', 'Invalid JSON body');

/**
 * The body decoded as Go's json.Decoder fills GoTrue's params struct: unknown keys ignored,
 * a JSON null leaves a field unset, a field of the wrong type (or no JSON at all) is bad_json.
 */
export async function readParams(c: Context): Promise<Record<string, unknown>> {
  const parsed = parseJsonText(await c.req.text());
  if (!parsed.ok) throw badJson();
  if (parsed.value === null) return {};
  if (!isPlainObject(parsed.value)) throw badJson();
  return parsed.value;
}

export function stringParam(body: Record<string, unknown>, key: string): string | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw badJson();
  return value;
}

export function listParam(body: Record<string, unknown>, key: string): string[] | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw badJson();
  // Go decodes a null element of a []string as "".
  return value.map((item: unknown) => {
    if (item === null) return '';
    if (typeof item !== 'string') throw badJson();
    return item;
  });
}

/** Go's url.Parse refuses ASCII control characters anywhere in a URL. */
export function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

/**
 * GoTrue's validateRedirectURI over Go's url.Parse: an absolute URI with a scheme and a host,
 * none of the script-capable schemes, http only for loopback hosts, no fragment.
 */
export function redirectUriProblem(uri: string): string | undefined {
  if (uri === '') return 'redirect URI cannot be empty';
  // Go's url.Parse refuses control characters and spaces in the host.
  if (hasControlCharacter(uri)) return 'invalid URL format';
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(uri);
  if (uri.startsWith(':')) return 'invalid URL format';
  if (!scheme) return 'must have scheme and host';
  const rest = uri.slice(scheme[0].length);
  const hashAt = rest.indexOf('#');
  const beforeFragment = hashAt === -1 ? rest : rest.slice(0, hashAt);
  if (!beforeFragment.startsWith('//')) return 'must have scheme and host';
  const authority = beforeFragment.slice(2).split(/[/?]/, 1)[0] ?? '';
  const hostPort = authority.slice(authority.lastIndexOf('@') + 1);
  if (/[\s<>"{}|\\^`]/.test(hostPort)) return 'invalid URL format';
  const portMatch = /^(\[[^\]]*\]|[^:]*)(?::(.*))?$/.exec(hostPort);
  const host = portMatch?.[1] ?? '';
  const port = portMatch?.[2];
  if (port !== undefined && !/^\d*$/.test(port)) return 'invalid URL format';
  if (host === '') return 'must have scheme and host';
  const name = scheme[1] ?? '';
  if (DANGEROUS_SCHEMES.includes(name.toLowerCase())) {
    return `scheme '${name}' is not allowed for security reasons`;
  }
  if (name === 'http') {
    const hostname = host.replace(/^\[(.*)\]$/, '$1');
    if (hostname !== 'localhost' && hostname !== '127.0.0.1' && hostname !== '::1') {
      return 'HTTP scheme only allowed for localhost';
    }
  }
  if (hashAt !== -1 && rest.slice(hashAt + 1) !== '') return 'fragment not allowed in redirect URI';
  return undefined;
}

export function validateRedirectUris(uris: string[] | undefined, required: boolean): void {
  if (required && (uris === undefined || uris.length === 0)) {
    throw validation('redirect_uris is required');
  }
  if (uris === undefined || uris.length === 0) throw validation('redirect_uris cannot be empty');
  if (uris.length > MAX_REDIRECT_URIS) throw validation('redirect_uris cannot exceed 10 items');
  for (const uri of uris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw validation(`invalid redirect_uri '${uri}': ${problem}`);
  }
}

export function validateGrantTypes(grants: string[]): void {
  if (grants.length === 0) throw validation('grant_types cannot be empty');
  if (grants.some((grant) => grant !== 'authorization_code' && grant !== 'refresh_token')) {
    throw validation("grant_types must only contain 'authorization_code' and/or 'refresh_token'");
  }
}

/** Go's url.ParseRequestURI: an absolute URI or an absolute path. */
export function validateUriField(value: string | undefined, key: string): void {
  if (!value) return;
  if (value.length > 2048) throw validation(`${key} cannot exceed 2048 characters`);
  const absolute = /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(value) || value.startsWith('/');
  if (!absolute || hasControlCharacter(value) || (value.split('#')[0] ?? '').includes(' ')) {
    throw validation(`${key} must be a valid URL`);
  }
}

export function validateClientName(name: string | undefined): void {
  if (name !== undefined && name.length > 1024) {
    throw validation('client_name cannot exceed 1024 characters');
  }
}

export const methodList = `[${AUTH_METHODS.join(' ')}]`;
export const inferType = (method: string): ClientType =>
  method === 'none' ? 'public' : 'confidential';
