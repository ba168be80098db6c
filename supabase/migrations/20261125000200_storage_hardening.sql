-- Storage hardening (issue 14): a stored object's Content-Type reaches browsers, so each of
-- our buckets names its types exactly. Storage (hosted and the devstack) accepts an upload
-- only when its Content-Type is one of these, bare: no `type/*` wildcard (it would admit
-- image/svg+xml, a document that runs script when opened), no parameters, no lists, lower
-- case. The app never trusts a served type anyway (it uses the attachment row's checked
-- mime_type), so this is the server's half of the fix. Re-set here because a list widened by
-- hand (dashboard, SQL) would quietly reopen the hole; a deploy puts it back.
update storage.buckets
   set public = false,
       file_size_limit = 10485760,
       allowed_mime_types = array['image/jpeg', 'image/png', 'image/webp', 'image/gif',
                                  'application/pdf']
 where id = 'attachments';

update storage.buckets
   set public = true,
       file_size_limit = 2097152,
       allowed_mime_types = array['image/jpeg', 'image/png', 'image/webp', 'image/gif']
 where id = 'avatars';
