// accept-invite (SPEC §7): a signed-in user trades an invite token for a membership.
// INVITE_INVALID 404, INVITE_USED 409, ALREADY_MEMBER 409, INVITE_EXPIRED 410.
import {
  caller,
  json,
  preflightOrMethod,
  readBody,
  serverError,
  serviceClient,
  sqlError,
  z,
} from '../_shared/http.ts';

/** Tokens are 64 hex characters; anything else cannot be one, so it is INVITE_INVALID. */
const Input = z.object({ token: z.string().trim().min(1).max(200) });

Deno.serve(async (req) => {
  const early = preflightOrMethod(req, ['POST']);
  if (early) return early;
  try {
    const who = await caller(req);
    if (who instanceof Response) return who;
    const input = await readBody(req, Input);
    if (input instanceof Response) return input;

    const { data, error } = await serviceClient().rpc('invite_accept', {
      token: input.token,
      by_user: who.user.id,
    });
    if (error) return serverError(error);
    if (data.error) return sqlError(data);
    return json({ list_id: data.list_id, role: data.role, membership_id: data.membership_id });
  } catch (error) {
    return serverError(error);
  }
});
