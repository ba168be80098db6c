-- Demo data for `npm start` and `supabase db reset`: two users (password `outpost-demo`),
-- one list they share and 30 tasks. Fixed ids so tests and docs can name them.

insert into auth.users (instance_id, id, aud, role, email, encrypted_password, email_confirmed_at,
                        raw_app_meta_data, raw_user_meta_data, created_at, updated_at,
                        confirmation_token, recovery_token, email_change_token_new, email_change)
values
  ('00000000-0000-0000-0000-000000000000', 'a11ce000-0000-4000-8000-000000000001',
   'authenticated', 'authenticated', 'alice@example.com',
   extensions.crypt('outpost-demo', extensions.gen_salt('bf', 10)), now(),
   '{"provider":"email","providers":["email"]}', '{"display_name":"Alice"}', now(), now(),
   '', '', '', ''),
  ('00000000-0000-0000-0000-000000000000', 'b0b00000-0000-4000-8000-000000000002',
   'authenticated', 'authenticated', 'bob@example.com',
   extensions.crypt('outpost-demo', extensions.gen_salt('bf', 10)), now(),
   '{"provider":"email","providers":["email"]}', '{"display_name":"Bob"}', now(), now(),
   '', '', '', '');

insert into auth.identities (provider_id, user_id, identity_data, provider, last_sign_in_at,
                             created_at, updated_at)
select u.id::text, u.id,
       jsonb_build_object('sub', u.id::text, 'email', u.email, 'email_verified', true),
       'email', now(), now(), now()
from auth.users u
where u.email in ('alice@example.com', 'bob@example.com');

-- Alice creates the list (and so owns it); Bob edits.
insert into public.lists (id, name, color, created_by)
values ('11570000-0000-4000-8000-000000000001', 'Site inspection — Block C', 'teal',
        'a11ce000-0000-4000-8000-000000000001');

insert into public.memberships (list_id, user_id, role)
values ('11570000-0000-4000-8000-000000000001', 'b0b00000-0000-4000-8000-000000000002', 'editor');

insert into public.tasks (id, list_id, title, notes, status, priority, due_on, assignee_id,
                          position, created_by)
select
  ('7a5c0000-0000-4000-8000-' || lpad(i::text, 12, '0'))::uuid,
  '11570000-0000-4000-8000-000000000001',
  (array['Check fire exits on level 1', 'Photograph cracked render, east wall',
         'Test emergency lighting', 'Confirm handrail heights on stairs',
         'Log meter readings', 'Inspect roof drainage', 'Check smoke detectors, flats 1–6',
         'Verify window restrictors', 'Measure ramp gradient at entrance',
         'Review asbestos register'])[1 + i % 10]
    || case when i >= 10 then ' (' || (1 + i / 10) || ')' else '' end,
  case when i % 4 = 0 then 'Bring the moisture meter. Note anything unusual with a photo.' else '' end,
  (array['todo', 'todo', 'doing', 'done'])[1 + i % 4],
  i % 4,
  case when i % 3 = 0 then current_date + (i - 10) end,
  case i % 3
    when 0 then 'a11ce000-0000-4000-8000-000000000001'::uuid
    when 1 then 'b0b00000-0000-4000-8000-000000000002'::uuid
  end,
  'a' || substr('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz', i + 1, 1),
  'a11ce000-0000-4000-8000-000000000001'
from generate_series(0, 29) as i;

insert into public.comments (task_id, list_id, author_id, body)
values
  ('7a5c0000-0000-4000-8000-000000000001', '11570000-0000-4000-8000-000000000001',
   'b0b00000-0000-4000-8000-000000000002', 'Render is cracked in two places — photos to follow.'),
  ('7a5c0000-0000-4000-8000-000000000001', '11570000-0000-4000-8000-000000000001',
   'a11ce000-0000-4000-8000-000000000001', 'Thanks, flag it for the contractor.');

-- Meter readings repeat every Monday; the fire exits have a checklist.
update public.tasks set repeat = 'weekly:1', due_on = current_date + ((8 - extract(isodow from current_date)::int) % 7)
  where id = '7a5c0000-0000-4000-8000-000000000004';

insert into public.checklist_items (task_id, list_id, text, done, position, created_by)
select '7a5c0000-0000-4000-8000-000000000000', '11570000-0000-4000-8000-000000000001',
       item.text, item.n <= 2, 'a' || item.n, 'a11ce000-0000-4000-8000-000000000001'
from (values (1, 'North stair, level 1'), (2, 'South stair, level 1'),
             (3, 'Exit signs lit'), (4, 'Doors open freely and are not blocked'))
  as item(n, text);
