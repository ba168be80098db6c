// PostgREST's resource embedding and select grammar as hosted answers them, on both engines:
// many-to-one, one-to-many, one-to-one, many-to-many, self and composite-key relationships,
// hints, !inner/!left, spreads, aliases/casts/JSON paths, aggregates, computed relationships
// and fields, filters/orders/limits on embeds, related orders, RLS on embedded rows, the
// relationship cache following DDL, and PGRST100/108/118/120/123/200/201 in PostgREST's words.
import { describe, expect, it } from 'vitest';

import { ENGINE_KINDS } from '../support/database';
import { answerOf, devstackPerEngine, fixture, pgrstError } from './support';

describe.each(ENGINE_KINDS)('PostgREST embedding conformance (%s)', (kind) => {
  const stack = devstackPerEngine(kind, {}, fixture('embedding.sql'));

  /** GET /rest/v1/<path> (query already encoded where it needs to be) as anon or service. */
  async function get(path: string, key: 'anon' | 'service' = 'anon', headers = {}) {
    const apikey = key === 'anon' ? stack.publishableKey : stack.secretKey;
    const response = await fetch(`${stack.url}/rest/v1/${path}`, {
      headers: { apikey, ...headers },
    });
    const { status, json, headers: replyHeaders } = await answerOf(response, null);
    return { status, body: json, headers: replyHeaders };
  }

  async function ok(path: string, key: 'anon' | 'service' = 'anon'): Promise<unknown> {
    const { status, body } = await get(path, key);
    expect(status, JSON.stringify(body)).toBe(200);
    return body;
  }

  it('many-to-one embeds an object, one-to-many an array (empty when nothing matches)', async () => {
    expect(await ok('emb_comments?select=id,emb_posts(title)&id=in.(100,103)&order=id')).toEqual([
      { id: 100, emb_posts: { title: 'engines' } },
      { id: 103, emb_posts: { title: 'bridges' } },
    ]);
    expect(await ok('emb_posts?select=id,emb_comments(id)&order=id')).toEqual([
      { id: 10, emb_comments: [{ id: 100 }, { id: 102 }] },
      { id: 11, emb_comments: [] },
      { id: 12, emb_comments: [{ id: 103 }] },
    ]);
  });

  it('two keys to one table: PGRST201 with the candidates, then hints by key, column or column of the target', async () => {
    const { status, body } = await get('emb_posts?select=id,emb_authors(name)');
    expect(status).toBe(300);
    expect(body).toEqual({
      code: 'PGRST201',
      details: [
        {
          cardinality: 'many-to-one',
          embedding: 'emb_posts with emb_authors',
          relationship: 'emb_posts_author_id_fkey using emb_posts(author_id) and emb_authors(id)',
        },
        {
          cardinality: 'many-to-one',
          embedding: 'emb_posts with emb_authors',
          relationship: 'emb_posts_editor_fkey using emb_posts(editor_id) and emb_authors(id)',
        },
      ],
      hint: "Try changing 'emb_authors' to one of the following: 'emb_authors!emb_posts_author_id_fkey', 'emb_authors!emb_posts_editor_fkey'. Find the desired relationship in the 'details' key.",
      message:
        "Could not embed because more than one relationship was found for 'emb_posts' and 'emb_authors'",
    });
    expect(
      await ok(
        'emb_posts?select=id,author:emb_authors!author_id(name),editor:emb_authors!emb_posts_editor_fkey(name)&order=id',
      ),
    ).toEqual([
      { id: 10, author: { name: 'ada' }, editor: { name: 'bob' } },
      { id: 11, author: { name: 'ada' }, editor: null },
      { id: 12, author: { name: 'bob' }, editor: { name: 'ada' } },
    ]);
    // The key's column alone names the relationship too.
    expect(await ok('emb_posts?select=id,editor_id(name)&id=eq.12')).toEqual([
      { id: 12, editor_id: { name: 'ada' } },
    ]);
    // A filter other than is.null on that name is the column's filter, not the embed's.
    expect(await ok('emb_posts?select=id,editor_id(name)&editor_id=eq.2')).toEqual([
      { id: 10, editor_id: { name: 'bob' } },
    ]);
  });

  it('one-to-one embeds an object from both sides', async () => {
    expect(await ok('emb_authors?select=name,emb_profiles(bio)&order=id')).toEqual([
      { name: 'ada', emb_profiles: { bio: 'mathematician' } },
      { name: 'bob', emb_profiles: { bio: 'builder' } },
      { name: 'cy', emb_profiles: null },
    ]);
    expect(await ok('emb_profiles?select=bio,emb_authors(name)&author_id=eq.2')).toEqual([
      { bio: 'builder', emb_authors: { name: 'bob' } },
    ]);
  });

  it('many-to-many through a junction whose key holds both keys', async () => {
    expect(await ok('emb_posts?select=id,emb_tags(label)&order=id&emb_tags.order=label')).toEqual([
      { id: 10, emb_tags: [{ label: 'history' }, { label: 'math' }] },
      { id: 11, emb_tags: [] },
      { id: 12, emb_tags: [{ label: 'history' }] },
    ]);
  });

  it('self-reference: the column names the parent, the table the children', async () => {
    expect(
      await ok('emb_nodes?select=label,parent:parent_id(label),children:emb_nodes(label)&id=eq.2'),
    ).toEqual([{ label: 'left', parent: { label: 'root' }, children: [{ label: 'leaf' }] }]);
  });

  it('composite foreign keys join on every column', async () => {
    expect(await ok('emb_offices?select=id,emb_regions(name)&order=id')).toEqual([
      { id: 1, emb_regions: { name: 'Paris' } },
      { id: 2, emb_regions: { name: 'Wessex' } },
    ]);
  });

  it("a view carries its table's foreign keys, renamed columns too, both ways", async () => {
    expect(await ok('emb_post_titles?select=title,emb_authors(name)&order=post_id')).toEqual([
      { title: 'engines', emb_authors: { name: 'ada' } },
      { title: 'notes', emb_authors: { name: 'ada' } },
      { title: 'bridges', emb_authors: { name: 'bob' } },
    ]);
    expect(
      await ok(
        'emb_authors?select=name,emb_post_titles(post_id)&id=eq.1&emb_post_titles.order=post_id',
      ),
    ).toEqual([{ name: 'ada', emb_post_titles: [{ post_id: 10 }, { post_id: 11 }] }]);
    expect(await ok('emb_comments?select=id,emb_post_titles(title)&id=eq.103')).toEqual([
      { id: 103, emb_post_titles: { title: 'bridges' } },
    ]);
  });

  it('select grammar: alias, cast, JSON paths named after their last key, quoted names, *', async () => {
    expect(
      await ok(
        'emb_authors?select=who:name,id::text,data->city->>name,town:data->city->name,first:data->langs->>0,"name"&id=eq.1',
      ),
    ).toEqual([{ who: 'ada', id: '1', name: 'ada', town: 'London', first: 'en' }]);
    expect(await ok('emb_profiles?select=*,emb_authors(*)&author_id=eq.2')).toEqual([
      {
        author_id: 2,
        bio: 'builder',
        emb_authors: { id: 2, name: 'bob', data: { city: { name: 'Paris' } } },
      },
    ]);
  });

  it('!inner drops parents without a match; an embed null filter does the same or the opposite', async () => {
    const withComments = await get('emb_posts?select=id,emb_comments!inner(id)&order=id', 'anon', {
      Prefer: 'count=exact',
    });
    expect((withComments.body as { id: number }[]).map((r) => r.id)).toEqual([10, 12]);
    // The count counts what the inner join keeps.
    expect(withComments.headers.get('content-range')).toBe('0-1/2');
    const filtered = await ok(
      'emb_posts?select=id,emb_comments!inner(id)&emb_comments.body=eq.ok&order=id',
    );
    expect(filtered).toEqual([{ id: 12, emb_comments: [{ id: 103 }] }]);
    expect(await ok('emb_posts?select=id,emb_comments(id)&emb_comments=is.null&order=id')).toEqual([
      { id: 11, emb_comments: [] },
    ]);
    expect(
      await ok('emb_posts?select=id,emb_comments()&emb_comments=not.is.null&order=id'),
    ).toEqual([{ id: 10 }, { id: 12 }]);
  });

  it('spread lifts a to-one embed into the row and a to-many one into arrays', async () => {
    expect(await ok('emb_posts?select=id,...emb_authors!author_id(author:name)&order=id')).toEqual([
      { id: 10, author: 'ada' },
      { id: 11, author: 'ada' },
      { id: 12, author: 'bob' },
    ]);
    expect(
      await ok('emb_posts?select=id,...emb_comments(body)&id=eq.10&emb_comments.order=id'),
    ).toEqual([{ id: 10, body: ['great', 'more'] }]);
  });

  it('embedded filters, or, order, limit and offset apply to the embedded rows only', async () => {
    expect(
      await ok(
        'emb_authors?select=name,posts:emb_posts!author_id(id,stars)&posts.order=stars.desc&posts.limit=1&order=id',
      ),
    ).toEqual([
      { name: 'ada', posts: [{ id: 10, stars: 5 }] },
      { name: 'bob', posts: [{ id: 12, stars: 4 }] },
      { name: 'cy', posts: [] },
    ]);
    expect(
      await ok(
        'emb_authors?select=name,posts:emb_posts!author_id(id)&posts.order=id&posts.offset=1&id=eq.1',
      ),
    ).toEqual([{ name: 'ada', posts: [{ id: 11 }] }]);
    expect(
      await ok(
        'emb_authors?select=name,posts:emb_posts!author_id(id)&posts.or=(stars.gte.5,title.eq.notes)&posts.order=id&id=eq.1',
      ),
    ).toEqual([{ name: 'ada', posts: [{ id: 10 }, { id: 11 }] }]);
    expect(
      await ok(
        'emb_authors?select=name,posts:emb_posts!author_id(id,emb_comments(id))&posts.emb_comments.id=eq.102&posts.id=eq.10&id=eq.1',
      ),
    ).toEqual([{ name: 'ada', posts: [{ id: 10, emb_comments: [{ id: 102 }] }] }]);
  });

  it('the parent orders by a to-one embed column; a to-many one is PGRST118', async () => {
    expect(
      await ok('emb_posts?select=id,author:emb_authors!author_id(name)&order=author(name).desc,id'),
    ).toEqual([
      { id: 12, author: { name: 'bob' } },
      { id: 10, author: { name: 'ada' } },
      { id: 11, author: { name: 'ada' } },
    ]);
    const { status, body } = await get(
      'emb_posts?select=id,emb_comments(id)&order=emb_comments(id)',
    );
    expect(status).toBe(400);
    expect(body).toEqual(
      pgrstError(
        'PGRST118',
        "A related order on 'emb_comments' is not possible",
        "'emb_posts' and 'emb_comments' do not form a many-to-one or one-to-one relationship",
      ),
    );
  });

  it('RLS applies to embedded rows as to top-level ones', async () => {
    const asAnon = await ok(
      'emb_posts?select=id,emb_comments(body)&id=eq.10&emb_comments.order=id',
    );
    expect(asAnon).toEqual([{ id: 10, emb_comments: [{ body: 'great' }, { body: 'more' }] }]);
    const asService = await ok(
      'emb_posts?select=id,emb_comments(body)&id=eq.10&emb_comments.order=id',
      'service',
    );
    expect(asService).toEqual([
      { id: 10, emb_comments: [{ body: 'great' }, { body: 'secret' }, { body: 'more' }] },
    ]);
  });

  it('computed relationships (setof … rows 1 is to-one) and computed fields', async () => {
    expect(
      await ok(
        'emb_authors?select=name,emb_shout,emb_best_post(title),emb_all_posts(id)&id=eq.1&emb_all_posts.order=id',
      ),
    ).toEqual([
      {
        name: 'ada',
        emb_shout: 'ADA',
        emb_best_post: { title: 'engines' },
        emb_all_posts: [{ id: 10 }, { id: 11 }],
      },
    ]);
  });

  it("count alone in an embed is Postgres's count of its rows, aggregates enabled or not", async () => {
    expect(await ok('emb_authors?select=name,emb_posts!author_id(count)&order=id')).toEqual([
      { name: 'ada', emb_posts: [{ count: 2 }] },
      { name: 'bob', emb_posts: [{ count: 1 }] },
      { name: 'cy', emb_posts: [{ count: 0 }] },
    ]);
  });

  it('a computed field is selected and ordered by like a column', async () => {
    expect(await ok('emb_authors?select=name,emb_shout&order=emb_shout.desc')).toEqual([
      { name: 'cy', emb_shout: 'CY' },
      { name: 'bob', emb_shout: 'BOB' },
      { name: 'ada', emb_shout: 'ADA' },
    ]);
  });

  it('aggregates are refused until the authenticator enables them, then count/sum/avg/max/min group', async () => {
    const refused = await get('emb_posts?select=stars.sum()');
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual(
      pgrstError('PGRST123', 'Use of aggregate functions is not allowed'),
    );
    // For this database only: other suites share the Postgres cluster, and a role-wide
    // setting would turn aggregates on for them too.
    await stack.db.exec(
      `do $$ begin execute format('alter role authenticator in database %I set pgrst.db_aggregates_enabled to %L', current_database(), 'true'); end $$`,
    );
    expect(await ok('emb_posts?select=stars.sum(),stars.max(),total:count()')).toEqual([
      { sum: 12, max: 5, total: 3 },
    ]);
    expect(
      await ok('emb_posts?select=author_id,n:count(),avg:stars.avg()::int&order=author_id'),
    ).toEqual([
      { author_id: 1, n: 2, avg: 4 },
      { author_id: 2, n: 1, avg: 4 },
    ]);
    expect(await ok('emb_authors?select=name,emb_posts!author_id(count())&order=id')).toEqual([
      { name: 'ada', emb_posts: [{ count: 2 }] },
      { name: 'bob', emb_posts: [{ count: 1 }] },
      { name: 'cy', emb_posts: [{ count: 0 }] },
    ]);
  });

  it('no relationship is PGRST200 with a hint; a filter on what is not embedded is PGRST108', async () => {
    const missing = await get('emb_posts?select=id,emb_comment(id)');
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual(
      pgrstError(
        'PGRST200',
        "Could not find a relationship between 'emb_posts' and 'emb_comment' in the schema cache",
        "Searched for a foreign key relationship between 'emb_posts' and 'emb_comment' in the schema 'public', but no matches were found.",
        "Perhaps you meant 'emb_comments' instead of 'emb_comment'.",
      ),
    );
    const hinted = await get('emb_posts?select=id,emb_tags!nope(id)');
    expect(hinted.body).toMatchObject({
      code: 'PGRST200',
      details:
        "Searched for a foreign key relationship between 'emb_posts' and 'emb_tags' using the hint 'nope' in the schema 'public', but no matches were found.",
    });
    const notEmbedded = await get('emb_posts?select=id&emb_comments.id=eq.1');
    expect(notEmbedded.status).toBe(400);
    expect(notEmbedded.body).toEqual(
      pgrstError(
        'PGRST108',
        "'emb_comments' is not an embedded resource in this request",
        null,
        "Verify that 'emb_comments' is included in the 'select' query parameter.",
      ),
    );
  });

  it('an unknown column of an embed names the embed alias; a bad select is PGRST100', async () => {
    const column = await get('emb_posts?select=id,emb_comments(nope)');
    expect(column.status).toBe(400);
    expect(column.body).toEqual(pgrstError('42703', 'column emb_comments_1.nope does not exist'));
    const parse = await get('emb_posts?select=id,emb_comments(id');
    expect(parse.status).toBe(400);
    expect(parse.body).toMatchObject({
      code: 'PGRST100',
      message: 'failed to parse select parameter (id,emb_comments(id)',
    });
  });

  it('the relationship cache follows DDL: a new foreign key embeds at once', async () => {
    await stack.db.exec(
      `create table public.emb_late (id int primary key, author_id int references public.emb_authors (id));
       insert into public.emb_late values (1, 3);
       grant select on public.emb_late to anon;`,
    );
    expect(await ok('emb_authors?select=name,emb_late(id)&id=eq.3')).toEqual([
      { name: 'cy', emb_late: [{ id: 1 }] },
    ]);
  });
});
