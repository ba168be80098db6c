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

/** What public.invite_accept answers: jsonb (typed `Json`), so checked here. */
const Answer = z.union([
  z.object({ error: z.string(), message: z.string().optional(), list_id: z.string().optional() }),
  z.object({ list_id: z.string(), role: z.string(), membership_id: z.string() }),
]);

serveAuthenticated(['POST'], async (req, who) => {
  const input = await readInput(req, Input);
  if (input instanceof Response) return input;

  const { data, error } = await serviceClient().rpc('invite_accept', {
    token: input.token,
    by_user: who.claims.sub,
  });
  if (error) return serverError(error);
  const answer = Answer.safeParse(data);
  if (!answer.success) return serverError(answer.error);
  if ('error' in answer.data) return sqlError(answer.data);
  const { list_id, role, membership_id } = answer.data;
  return json({ list_id, role, membership_id });
});
