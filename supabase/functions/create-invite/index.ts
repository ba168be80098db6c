// create-invite (product.md §7): an owner gets a link with a single-use token that makes its
// holder an editor or viewer of the list; it expires after 7 days.
import {
  json,
  readInput,
  serveAuthenticated,
  serverError,
  serviceClient,
  sqlError,
  uuid,
  z,
} from '../_shared/http.ts';

const Input = z.object({ list_id: uuid, role: z.enum(['editor', 'viewer']) });

/** What public.invite_create answers: jsonb (typed `Json`), so checked here. */
const Answer = z.union([
  z.object({ error: z.string(), message: z.string().optional() }),
  z.object({
    invite_id: z.string(),
    token: z.string(),
    list_id: z.string(),
    role: z.string(),
    expires_at: z.string(),
  }),
]);

/** Where invite links point: the app's /invite/:token route. */
function siteUrl(req: Request): string {
  return (Deno.env.get('SITE_URL') ?? req.headers.get('origin') ?? '').replace(/\/+$/, '');
}

serveAuthenticated(['POST'], async (req, who) => {
  const input = await readInput(req, Input);
  if (input instanceof Response) return input;

  const { data, error } = await serviceClient().rpc('invite_create', {
    list: input.list_id,
    invite_role: input.role,
    by_user: who.claims.sub,
  });
  if (error) return serverError(error);
  const answer = Answer.safeParse(data);
  if (!answer.success) return serverError(answer.error);
  if ('error' in answer.data) return sqlError(answer.data);
  const invite = answer.data;
  return json({
    url: `${siteUrl(req)}/invite/${invite.token}`,
    token: invite.token,
    invite_id: invite.invite_id,
    list_id: invite.list_id,
    role: invite.role,
    expires_at: invite.expires_at,
  });
});
