// accept-invite (product.md §7): a signed-in user trades an invite token for a membership.
// INVITE_INVALID 404, INVITE_USED 409, ALREADY_MEMBER 409, INVITE_EXPIRED 410.
import {
  json,
  readInput,
  serveAuthenticated,
  serverError,
  serviceClient,
  sqlError,
  z,
} from '../_shared/http.ts';

/** Tokens are 64 hex characters; anything else cannot be one, so it is INVITE_INVALID. */
const Input = z.object({ token: z.string().trim().min(1).max(200) });

serveAuthenticated(['POST'], async (req, who) => {
  const input = await readInput(req, Input);
  if (input instanceof Response) return input;

  const { data, error } = await serviceClient().rpc('invite_accept', {
    token: input.token,
    by_user: who.user.id,
  });
  if (error) return serverError(error);
  if (data.error) return sqlError(data);
  return json({ list_id: data.list_id, role: data.role, membership_id: data.membership_id });
});
