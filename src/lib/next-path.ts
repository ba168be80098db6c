// Where to go after signing in, apart from src/lib/auth.ts: the welcome screen needs it, and
// not supabase-js, which auth.ts brings (issue 16).

/** Where to go after signing in: a same-origin path from `?next=`, else the lists. */
export function safeNext(next: string | null | undefined, fallback = '/lists'): string {
  if (!next || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) {
    return fallback;
  }
  return next;
}
