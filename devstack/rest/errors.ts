// PostgREST's error body ({code, details, hint, message}) and its SQLSTATE → HTTP mapping
// (mapSQLtoHTTP), so supabase-js callers see the same status and code as on hosted.
import { sqlState } from '../sql-engine';

export interface PgrstBody {
  code: string;
  /** A sentence, or (PGRST201) the list of candidate relationships. */
  details: string | Record<string, string>[] | null;
  hint: string | null;
  message: string;
}

/** An error the REST service answers with, as PostgREST would. */
export class PgrstError extends Error {
  constructor(
    readonly status: number,
    readonly body: PgrstBody,
    readonly headers: Record<string, string> = {},
  ) {
    super(body.message);
  }
}

export function pgrstError(
  status: number,
  code: string,
  message: string,
  details: string | null = null,
  hint: string | null = null,
): PgrstError {
  return new PgrstError(status, { code, details, hint, message });
}

/** A query-string parse failure (PGRST100). */
export function parseError(message: string, details: string | null = null): PgrstError {
  return pgrstError(400, 'PGRST100', message, details);
}

function stringField(error: object, key: string): string | null {
  const value: unknown = (error as Record<string, unknown>)[key];
  return typeof value === 'string' && value !== '' ? value : null;
}

/** PostgREST's HTTP status for a SQLSTATE (anon callers get 401 for 42501). */
export function httpStatusFor(code: string, isAnon: boolean): number {
  if (/^PT\d{3}$/.test(code)) return Number(code.slice(2));
  if (code === '42501') return isAnon ? 401 : 403;
  if (code === '23503' || code === '23505') return 409;
  if (code === '42883' || code === '42P01') return 404;
  if (code === '25006') return 405;
  if (code === '22023') return 400;
  if (code === '53400') return 500;
  if (code === '57P01' || code.startsWith('08') || code.startsWith('53')) return 503;
  if (code.startsWith('0L') || code.startsWith('0P') || code.startsWith('28')) return 403;
  if (code === 'P0001' || code.startsWith('22') || code.startsWith('23')) return 400;
  if (code === '42P17') return 500;
  if (code.startsWith('42')) return 400;
  if (code.startsWith('P0') || code.startsWith('XX') || code.startsWith('25')) return 500;
  if (/^(40|54|55|57|58)/.test(code)) return 500;
  if (code.startsWith('2') || code.startsWith('0')) return 400;
  return 500;
}

/** Turns anything thrown while serving a request into PostgREST's answer. */
export function toPgrstError(error: unknown, isAnon: boolean): PgrstError {
  if (error instanceof PgrstError) return error;
  const code = sqlState(error);
  if (code !== undefined && typeof error === 'object' && error !== null) {
    const status = httpStatusFor(code, isAnon);
    const body: PgrstBody = {
      code,
      details: stringField(error, 'detail'),
      hint: stringField(error, 'hint'),
      message: stringField(error, 'message') ?? 'database error',
    };
    const headers: Record<string, string> = status === 401 ? { 'WWW-Authenticate': 'Bearer' } : {};
    return new PgrstError(status, body, headers);
  }
  const message = error instanceof Error ? error.message : String(error);
  return pgrstError(500, 'PGRST000', message);
}
