// The checks GoTrue makes before any new MFA factor (validateFactors) and the session's AAL,
// shared by TOTP/phone enrolment (mfa.ts) and WebAuthn enrolment (mfa-webauthn.ts).
import { sqlNow } from '../clock';
import type { DevstackContext } from '../context';
import type { SqlRunner } from '../sql-engine';
import { AuthApiError } from './errors';

/** Unverified factors with no challenge are dropped after this (FactorExpiryDuration, s). */
const FACTOR_EXPIRY_SEC = 300;
/** GoTrue's MaxVerifiedFactors. */
const MAX_VERIFIED_FACTORS = 10;

const tooMany = () =>
  new AuthApiError(
    422,
    'too_many_enrolled_mfa_factors',
    'Maximum number of verified factors reached, unenroll to continue',
  );

export async function sessionAal(db: SqlRunner, sessionId: string | undefined): Promise<string> {
  if (!sessionId) return 'aal1';
  const { rows } = await db.query<{ aal: string | null }>(
    `select aal from auth.sessions where id::text = $1`,
    [sessionId],
  );
  return rows[0]?.aal ?? 'aal1';
}

/** GoTrue's validateFactors: expired factors dropped, then name, count and AAL rules. */
export async function validateNewFactor(
  ctx: DevstackContext,
  tx: SqlRunner,
  userId: string,
  friendlyName: string,
  sessionId: string,
): Promise<void> {
  const at = sqlNow(ctx.clock);
  await tx.query(
    `delete from auth.mfa_factors f where f.status <> 'verified'
       and not exists (select 1 from auth.mfa_challenges c where c.factor_id = f.id)
       and f.created_at + make_interval(secs => $1) < $2::timestamptz`,
    [FACTOR_EXPIRY_SEC, at],
  );
  const { rows } = await tx.query<{ friendly_name: string | null; status: string }>(
    `select friendly_name, status::text as status from auth.mfa_factors where user_id::text = $1`,
    [userId],
  );
  if (rows.some((row) => (row.friendly_name ?? '') === friendlyName)) {
    throw new AuthApiError(
      422,
      'mfa_factor_name_conflict',
      `A factor with the friendly name ${JSON.stringify(friendlyName)} for this user already exists`,
    );
  }
  const verified = rows.filter((row) => row.status === 'verified').length;
  if (rows.length >= ctx.settings.auth.mfaMaxEnrolledFactors) throw tooMany();
  if (verified >= MAX_VERIFIED_FACTORS) throw tooMany();
  if (verified > 0 && (await sessionAal(tx, sessionId)) !== 'aal2') {
    throw new AuthApiError(403, 'insufficient_aal', 'AAL2 required to enroll a new factor');
  }
}
