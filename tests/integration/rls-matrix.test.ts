// product.md §6 as a table: every role × every action × every table (and storage objects), run
// as that caller against the real migrations on PGlite and on Postgres 15. A case passes when
// an allowed action changes/returns the row and a forbidden one fails with 42501 (or the
// rule's own SQLSTATE) or touches 0 rows. Each case runs in a transaction that rolls back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { sqlState, type SqlRunner } from '../../devstack/sql-engine';
import {
  asCallerThenRollback,
  createUsers,
  ENGINE_KINDS,
  freshDatabase,
  testId,
  type Caller,
  type TestDatabase,
} from '../support/database';

const ROLES = ['owner', 'editor', 'viewer', 'outsider', 'anon'] as const;
type Role = (typeof ROLES)[number];

const users = {
  owner: testId('0a'),
  editor: testId('0e'),
  viewer: testId('0f'),
  outsider: testId('0b'),
};
/** Owns a list none of the roles above belongs to. */
const stranger = testId('0c');
const list = testId('11');
const otherList = testId('12');
const task = testId('7a');
const attachment = testId('a7');
const checklistItem = testId('cc');
const objectPath = `${list}/${task}/${attachment}.jpg`;
const comments = { owner: testId('c0'), editor: testId('c1'), viewer: testId('c2') };
const memberships = { owner: testId('30'), editor: testId('31'), viewer: testId('32') };

/** Whose comment counts as "someone else's" for each actor. */
const othersComment: Record<Role, string> = {
  owner: comments.editor,
  editor: comments.viewer,
  viewer: comments.editor,
  outsider: comments.editor,
  anon: comments.editor,
};
/** A member other than the actor, for "remove a member" and "change a role". */
const otherMember: Record<Role, string> = {
  owner: memberships.viewer,
  editor: memberships.viewer,
  viewer: memberships.editor,
  outsider: memberships.viewer,
  anon: memberships.viewer,
};

type Outcome = 'allowed' | 'denied';
interface Action {
  name: string;
  /** Expected for owner, editor, viewer, outsider, anon: Y = allowed, N = denied. */
  expect: string;
  /** SQLSTATEs besides 42501 that count as a denial (a server rule refusing). */
  alsoDeniedBy?: string[];
  run(tx: SqlRunner, actor: Role): Promise<number>;
}

/** Every statement the matrix runs, to check that it reaches every table. */
const statements = new Set<string>();
const seen = (sql: string, params: string[]) => {
  statements.add(sql);
  return async (tx: SqlRunner) => (await tx.query(sql, params)).rows.length;
};
const changed = (sql: string, params: string[]) => {
  statements.add(sql);
  return async (tx: SqlRunner) => (await tx.query(sql, params)).affected;
};

const ACTIONS: Action[] = [
  // see list, tasks, comments, attachments, members' profiles
  { name: 'see the list', expect: 'YYYNN', run: seen('select 1 from lists where id = $1', [list]) },
  {
    name: 'see tasks',
    expect: 'YYYNN',
    run: seen('select 1 from tasks where list_id = $1', [list]),
  },
  {
    name: 'see comments',
    expect: 'YYYNN',
    run: seen('select 1 from comments where list_id = $1', [list]),
  },
  {
    name: 'see attachments',
    expect: 'YYYNN',
    run: seen('select 1 from attachments where list_id = $1', [list]),
  },
  {
    name: 'see checklist items',
    expect: 'YYYNN',
    run: seen('select 1 from checklist_items where list_id = $1', [list]),
  },
  {
    name: 'see members',
    expect: 'YYYNN',
    run: seen('select 1 from memberships where list_id = $1', [list]),
  },
  {
    name: "see a fellow member's profile",
    expect: 'YYYNN',
    run: (tx, actor) =>
      seen('select 1 from profiles where id = $1', [
        actor === 'owner' ? users.editor : users.owner,
      ])(tx),
  },
  {
    name: "see a stranger's profile",
    expect: 'NNNNN',
    run: seen('select 1 from profiles where id = $1', [stranger]),
  },
  {
    name: 'see attachment objects',
    expect: 'YYYNN',
    run: seen('select 1 from storage.objects where name = $1', [objectPath]),
  },
  {
    name: 'see invites',
    expect: 'NNNNN',
    run: seen('select 1 from invites where list_id = $1', [list]),
  },
  // create/edit/delete tasks and attachments
  {
    name: 'create a task',
    expect: 'YYNNN',
    run: changed(`insert into tasks (id, list_id, title, position) values ($1, $2, 'New', 'b0')`, [
      testId('7b'),
      list,
    ]),
  },
  {
    name: 'create a task as someone else',
    expect: 'NNNNN',
    run: (tx, actor) =>
      changed(
        `insert into tasks (id, list_id, title, position, created_by) values ($1, $2, 'New', 'b0', $3)`,
        [testId('7c'), list, actor === 'owner' ? users.editor : users.owner],
      )(tx),
  },
  {
    name: 'edit a task',
    expect: 'YYNNN',
    run: changed(`update tasks set title = 'Edited' where id = $1`, [task]),
  },
  {
    name: 'complete a task',
    expect: 'YYNNN',
    run: changed(`update tasks set status = 'done' where id = $1`, [task]),
  },
  {
    name: 'delete a task',
    expect: 'YYNNN',
    run: changed('update tasks set deleted_at = now() where id = $1', [task]),
  },
  {
    name: 'hard-delete a task',
    expect: 'NNNNN',
    run: changed('delete from tasks where id = $1', [task]),
  },
  {
    name: 'add an attachment',
    expect: 'YYNNN',
    run: (tx) => {
      const id = testId('a8');
      return changed(
        `insert into attachments (id, task_id, list_id, object_path, file_name, mime_type, size_bytes)
         values ($1, $2, $3, $4, 'x.png', 'image/png', 10)`,
        [id, task, list, `${list}/${task}/${id}.png`],
      )(tx);
    },
  },
  {
    name: 'rename an attachment',
    expect: 'YYNNN',
    run: changed(`update attachments set file_name = 'y.jpg' where id = $1`, [attachment]),
  },
  {
    name: 'delete an attachment',
    expect: 'YYNNN',
    run: changed('update attachments set deleted_at = now() where id = $1', [attachment]),
  },
  {
    name: 'hard-delete an attachment',
    expect: 'NNNNN',
    run: changed('delete from attachments where id = $1', [attachment]),
  },
  // checklist items: as tasks and attachments
  {
    name: 'add a checklist item',
    expect: 'YYNNN',
    run: changed(
      `insert into checklist_items (id, task_id, list_id, text, position) values ($1, $2, $3, 'Item', 'b0')`,
      [testId('cd'), task, list],
    ),
  },
  {
    name: 'add a checklist item as someone else',
    expect: 'NNNNN',
    run: (tx, actor) =>
      changed(
        `insert into checklist_items (id, task_id, list_id, text, position, created_by) values ($1, $2, $3, 'Item', 'b0', $4)`,
        [testId('ce'), task, list, actor === 'owner' ? users.editor : users.owner],
      )(tx),
  },
  {
    name: 'tick a checklist item',
    expect: 'YYNNN',
    run: changed('update checklist_items set done = true where id = $1', [checklistItem]),
  },
  {
    name: 'delete a checklist item',
    expect: 'YYNNN',
    run: changed('update checklist_items set deleted_at = now() where id = $1', [checklistItem]),
  },
  {
    name: 'hard-delete a checklist item',
    expect: 'NNNNN',
    run: changed('delete from checklist_items where id = $1', [checklistItem]),
  },
  {
    name: 'upload an attachment object',
    expect: 'YYNNN',
    run: changed(`insert into storage.objects (bucket_id, name) values ('attachments', $1)`, [
      `${list}/${task}/${testId('a9')}.png`,
    ]),
  },
  {
    name: 'replace an attachment object',
    expect: 'YYNNN',
    run: changed(`update storage.objects set metadata = '{"size":2}' where name = $1`, [
      objectPath,
    ]),
  },
  {
    name: 'remove an attachment object',
    expect: 'YYNNN',
    run: changed('delete from storage.objects where name = $1', [objectPath]),
  },
  {
    name: "upload into another list's folder",
    expect: 'NNNNN',
    run: changed(`insert into storage.objects (bucket_id, name) values ('attachments', $1)`, [
      `${otherList}/${task}/${testId('aa')}.png`,
    ]),
  },
  // comment
  {
    name: 'comment',
    expect: 'YYYNN',
    run: (tx, actor) =>
      changed(
        `insert into comments (id, task_id, list_id, author_id, body) values ($1, $2, $3, $4, 'Hi')`,
        [
          testId('c3'),
          task,
          list,
          actor === 'outsider' || actor === 'anon' ? users.outsider : users[actor],
        ],
      )(tx),
  },
  {
    name: 'comment as someone else',
    expect: 'NNNNN',
    run: (tx, actor) =>
      changed(
        `insert into comments (id, task_id, list_id, author_id, body) values ($1, $2, $3, $4, 'Hi')`,
        [testId('c4'), task, list, actor === 'owner' ? users.editor : users.owner],
      )(tx),
  },
  // edit/delete a comment: own; owner any
  {
    name: 'edit own comment',
    expect: 'YYYNN',
    run: (tx, actor) =>
      changed(`update comments set body = 'Edited' where id = $1`, [
        actor === 'owner' || actor === 'editor' || actor === 'viewer'
          ? comments[actor]
          : comments.editor,
      ])(tx),
  },
  {
    name: 'delete own comment',
    expect: 'YYYNN',
    run: (tx, actor) =>
      changed('update comments set deleted_at = now() where id = $1', [
        actor === 'owner' || actor === 'editor' || actor === 'viewer'
          ? comments[actor]
          : comments.editor,
      ])(tx),
  },
  {
    name: "edit someone else's comment",
    expect: 'YNNNN',
    run: (tx, actor) =>
      changed(`update comments set body = 'Edited' where id = $1`, [othersComment[actor]])(tx),
  },
  {
    name: "delete someone else's comment",
    expect: 'YNNNN',
    run: (tx, actor) =>
      changed('update comments set deleted_at = now() where id = $1', [othersComment[actor]])(tx),
  },
  // rename/recolour list
  {
    name: 'rename the list',
    expect: 'YYNNN',
    run: changed(`update lists set name = 'Renamed' where id = $1`, [list]),
  },
  {
    name: 'recolour the list',
    expect: 'YYNNN',
    run: changed(`update lists set color = 'red' where id = $1`, [list]),
  },
  // delete list, invite, change roles, remove members
  {
    name: 'delete the list',
    expect: 'YNNNN',
    run: changed('update lists set deleted_at = now() where id = $1', [list]),
  },
  {
    name: 'hard-delete the list',
    expect: 'NNNNN',
    run: changed('delete from lists where id = $1', [list]),
  },
  // Members arrive only through an accepted invite (product.md §4), never by a client's insert.
  {
    name: 'add a member',
    expect: 'NNNNN',
    run: changed(`insert into memberships (list_id, user_id, role) values ($1, $2, 'viewer')`, [
      list,
      users.outsider,
    ]),
  },
  {
    name: "change another member's role",
    expect: 'YNNNN',
    run: (tx, actor) =>
      changed(`update memberships set role = 'editor' where id = $1`, [otherMember[actor]])(tx),
  },
  {
    name: 'promote oneself',
    expect: 'NNNNN',
    run: (tx, actor) =>
      changed(
        `update memberships set role = 'owner' where list_id = $1 and user_id = $2 and role <> 'owner'`,
        [list, actor === 'anon' ? users.viewer : users[actor]],
      )(tx),
  },
  {
    name: 'remove another member',
    expect: 'YNNNN',
    run: (tx, actor) =>
      changed('update memberships set deleted_at = now() where id = $1', [otherMember[actor]])(tx),
  },
  {
    name: 'add oneself as an owner',
    expect: 'NNNNN',
    run: (tx, actor) =>
      changed(`insert into memberships (list_id, user_id, role) values ($1, $2, 'owner')`, [
        otherList,
        actor === 'anon' ? users.outsider : users[actor],
      ])(tx),
  },
  {
    name: 'create an invite',
    expect: 'NNNNN',
    run: (tx, actor) =>
      seen(`select public.invite_create($1, 'viewer', $2)`, [
        list,
        actor === 'anon' ? users.owner : users[actor],
      ])(tx),
  },
  // leave list: unless last owner
  {
    name: 'leave the list',
    expect: 'NYYNN',
    alsoDeniedBy: ['P0001'],
    run: (tx, actor) =>
      changed('update memberships set deleted_at = now() where list_id = $1 and user_id = $2', [
        list,
        actor === 'anon' ? users.viewer : users[actor],
      ])(tx),
  },
  // anyone signed in makes lists of their own
  {
    name: 'create a list',
    expect: 'YYYYN',
    run: (tx, actor) =>
      changed(`insert into lists (id, name, created_by) values ($1, 'Mine', $2)`, [
        testId('13'),
        actor === 'anon' ? users.owner : users[actor],
      ])(tx),
  },
  // a profile is edited only by its user
  {
    name: 'edit own profile',
    expect: 'YYYYN',
    run: (tx, actor) =>
      changed(`update profiles set display_name = 'Me' where id = $1`, [
        actor === 'anon' ? users.owner : users[actor],
      ])(tx),
  },
  {
    name: "edit someone else's profile",
    expect: 'NNNNN',
    run: (tx, actor) =>
      changed(`update profiles set display_name = 'Hacked' where id = $1`, [
        actor === 'owner' ? users.editor : users.owner,
      ])(tx),
  },
];

function callerFor(role: Role): Caller {
  return role === 'anon' ? 'anon' : { uid: users[role] };
}

async function seedFixture(db: TestDatabase): Promise<void> {
  const e = db.engine;
  await createUsers(e, { ...users, stranger });
  await e.query(
    `insert into lists (id, name, created_by) values ($1, 'Shared', $2), ($3, 'Private', $4)`,
    [list, users.owner, otherList, stranger],
  );
  const owned = await e.query<{ id: string }>(
    `select id from memberships where list_id = $1 and user_id = $2`,
    [list, users.owner],
  );
  memberships.owner = owned.rows[0]?.id ?? '';
  await e.query(
    `insert into memberships (id, list_id, user_id, role) values ($1, $3, $4, 'editor'), ($2, $3, $5, 'viewer')`,
    [memberships.editor, memberships.viewer, list, users.editor, users.viewer],
  );
  await e.query(
    `insert into tasks (id, list_id, title, position, created_by) values ($1, $2, 'Task', 'a0', $3)`,
    [task, list, users.owner],
  );
  for (const who of ['owner', 'editor', 'viewer'] as const) {
    await e.query(
      `insert into comments (id, task_id, list_id, author_id, body) values ($1, $2, $3, $4, 'Note')`,
      [comments[who], task, list, users[who]],
    );
  }
  await e.query(
    `insert into attachments (id, task_id, list_id, object_path, file_name, mime_type, size_bytes, created_by)
     values ($1, $2, $3, $4, 'photo.jpg', 'image/jpeg', 1234, $5)`,
    [attachment, task, list, objectPath, users.editor],
  );
  await e.query(
    `insert into checklist_items (id, task_id, list_id, text, position, created_by)
     values ($1, $2, $3, 'Pack the tent', 'a0', $4)`,
    [checklistItem, task, list, users.editor],
  );
  await e.query(
    `insert into storage.objects (bucket_id, name, owner) values ('attachments', $1, $2)`,
    [objectPath, users.editor],
  );
  await e.query(
    `insert into invites (list_id, role, token_hash, created_by) values ($1, 'viewer', $2, $3)`,
    [list, 'a'.repeat(64), users.owner],
  );
}

async function outcome(db: TestDatabase, action: Action, role: Role): Promise<Outcome> {
  try {
    const n = await asCallerThenRollback(db.engine, callerFor(role), (tx) => action.run(tx, role));
    return n > 0 ? 'allowed' : 'denied';
  } catch (error) {
    const code = sqlState(error);
    if (code === '42501' || (code !== undefined && action.alsoDeniedBy?.includes(code)))
      return 'denied';
    throw error;
  }
}

describe.each(ENGINE_KINDS)('RLS matrix of product.md §6 on %s', (kind) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await freshDatabase(kind, { seed: false });
    await seedFixture(db);
  });
  afterAll(() => db.close());

  const cases = ACTIONS.flatMap((action) =>
    ROLES.map((role, i) => ({
      action,
      role,
      expected: action.expect[i] === 'Y' ? 'allowed' : 'denied',
    })),
  );

  it.each(cases)('$role: $action.name → $expected', async ({ action, role, expected }) => {
    expect(await outcome(db, action, role)).toBe(expected);
  });

  it('lets an owner leave when another owner remains', async () => {
    const n = await asCallerThenRollback(db.engine, { uid: users.owner }, async (tx) => {
      await tx.query(`update memberships set role = 'owner' where id = $1`, [memberships.editor]);
      return (
        await tx.query('update memberships set deleted_at = now() where id = $1', [
          memberships.owner,
        ])
      ).affected;
    });
    expect(n).toBe(1);
  });

  it('covers every synced table and storage in the matrix', async () => {
    // Actions built per actor add their statements when first run, i.e. by the cases above.
    const { rows } = await db.engine.query<{ name: string }>('select name from sync_registry');
    const sqlOfMatrix = [...statements].join('\n');
    for (const { name } of rows) expect(sqlOfMatrix, name).toMatch(new RegExp(`\\b${name}\\b`));
    expect(sqlOfMatrix).toContain('storage.objects');
    expect(sqlOfMatrix).toContain('invites');
  });
});
