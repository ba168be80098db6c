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
    by_user: who.user.id,
  });
  if (error) return serverError(error);
  if (data.error) return sqlError(data);
  return json({
    url: `${siteUrl(req)}/invite/${data.token}`,
    token: data.token,
    invite_id: data.invite_id,
    list_id: data.list_id,
    role: data.role,
    expires_at: data.expires_at,
  });
});
