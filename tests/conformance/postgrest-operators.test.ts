// PostgREST's filter operators as hosted answers them, on both engines: like/ilike with
// (any)/(all), match/imatch, in, is, isdistinct, the range operators, cs/cd/ov on ranges,
// arrays and jsonb, full-text search with and without a language, their not. forms, or/and
// trees holding them, and the parser's words for a filter it cannot read.
import { describe, expect, it } from 'vitest';

import { ENGINE_KINDS } from '../support/database';
import { devstackPerEngine, fixture, pgrstError } from './support';

describe.each(ENGINE_KINDS)('PostgREST operators conformance (%s)', (kind) => {
  const stack = devstackPerEngine(kind, {}, fixture('operators.sql'));

  /** GET conf_ops with the filters given (values encoded here), ids in order. */
  async function get(filters: [string, string][]) {
    const query = [['select', 'id'], ['order', 'id'], ...filters]
      .map(([k, v]) => `${encodeURIComponent(k ?? '')}=${encodeURIComponent(v ?? '')}`)
      .join('&');
    const response = await fetch(`${stack.url}/rest/v1/conf_ops?${query}`, {
      headers: { apikey: stack.publishableKey },
    });
    const body = (await response.json()) as unknown;
    return { status: response.status, body };
  }

  async function ids(filters: [string, string][]): Promise<number[]> {
    const { status, body } = await get(filters);
    expect(status, JSON.stringify(body)).toBe(200);
    return (body as { id: number }[]).map((row) => row.id);
  }

  it('like and ilike take (all) and (any) over a list of patterns, * standing for %', async () => {
    expect(await ids([['name', 'like(all).{%supa%,%bot%}']])).toEqual([1]);
    expect(await ids([['name', 'like(any).{%supa%,%kiwi%}']])).toEqual([1, 2]);
    expect(await ids([['name', 'ilike(all).{%SUPA%,%bot%}']])).toEqual([1]);
    expect(await ids([['name', 'ilike(any).{%SUPA%,%KIWI%}']])).toEqual([1, 2]);
    expect(await ids([['name', 'like.*wai*']])).toEqual([3]);
    expect(await ids([['name', 'not.like(any).{sup*,kiwi*}']])).toEqual([3, 4]);
  });

  it('match and imatch are POSIX regular expressions', async () => {
    expect(await ids([['name', 'match.^sup']])).toEqual([1]);
    expect(await ids([['name', 'imatch.^SUP']])).toEqual([1]);
    expect(await ids([['name', 'not.imatch.^SUP']])).toEqual([2, 3, 4]);
    expect(await ids([['name', 'match(any).{^sup,^kiwi}']])).toEqual([1, 2]);
    expect(await ids([['name', 'imatch(all).{^A,S$}']])).toEqual([3]);
  });

  it('in takes quoted values with commas; in.() matches nothing and not.in.() everything', async () => {
    expect(await ids([['name', 'in.("a,b (odd)",supabot)']])).toEqual([1, 4]);
    expect(await ids([['name', 'not.in.(supabot)']])).toEqual([2, 3, 4]);
    expect(await ids([['name', 'in.()']])).toEqual([]);
    expect(await ids([['name', 'not.in.()']])).toEqual([1, 2, 3, 4]);
    // Spaces belong to the value: only the parentheses are trimmed around.
    expect(await ids([['name', 'in.( supabot,kiwicopple )']])).toEqual([]);
    expect(await ids([['name', 'in.(supabot,kiwicopple)']])).toEqual([1, 2]);
  });

  it('is takes null, not_null, true, false, unknown in any case; isdistinct; eq/gt/lte(any|all)', async () => {
    expect(await ids([['flag', 'is.null']])).toEqual([3, 4]);
    expect(await ids([['flag', 'is.NULL']])).toEqual([3, 4]);
    expect(await ids([['flag', 'is.not_null']])).toEqual([1, 2]);
    expect(await ids([['flag', 'is.true']])).toEqual([1]);
    expect(await ids([['flag', 'is.false']])).toEqual([2]);
    expect(await ids([['flag', 'is.unknown']])).toEqual([3, 4]);
    expect(await ids([['flag', 'not.is.null']])).toEqual([1, 2]);
    expect(await ids([['flag', 'isdistinct.true']])).toEqual([2, 3, 4]);
    expect(await ids([['id', 'gt(all).{1,2}']])).toEqual([3, 4]);
    expect(await ids([['id', 'lte(any).{1,2}']])).toEqual([1, 2]);
    expect(await ids([['id', 'eq(any).{1,3}']])).toEqual([1, 3]);
  });

  it('the range operators sl, sr, nxr, nxl, adj, ov, cs and cd', async () => {
    expect(await ids([['span', 'sl.[3,10)']])).toEqual([1]);
    expect(await ids([['span', 'sr.[3,10)']])).toEqual([2, 3]);
    expect(await ids([['span', 'nxr.[3,10)']])).toEqual([1]);
    expect(await ids([['span', 'nxl.[3,10)']])).toEqual([2, 3]);
    expect(await ids([['span', 'adj.[2,20)']])).toEqual([1, 3]);
    expect(await ids([['span', 'ov.[28,40)']])).toEqual([2, 3]);
    expect(await ids([['span', 'cs.[26,27)']])).toEqual([2, 3]);
    expect(await ids([['span', 'cd.[0,30]']])).toEqual([1, 3]);
    expect(await ids([['span', 'not.sl.[3,10)']])).toEqual([2, 3]);
  });

  it('cs, cd and ov on arrays and jsonb', async () => {
    expect(await ids([['tags', 'cs.{red}']])).toEqual([1, 2]);
    expect(await ids([['tags', 'cd.{red,green}']])).toEqual([1, 3]);
    expect(await ids([['tags', 'ov.{blue,green}']])).toEqual([2]);
    expect(await ids([['doc', 'cs.{"a":{"b":1}}']])).toEqual([1]);
    expect(await ids([['doc', 'cd.{"c":true,"d":1}']])).toEqual([3]);
    // In a logic tree a {…} value keeps its commas.
    expect(await ids([['or', '(tags.cs.{blue,red},doc.cd.{"c":true,"d":1})']])).toEqual([2, 3]);
  });

  it('fts, plfts, phfts and wfts, with a language or without, on tsvector and text', async () => {
    expect(await ids([['words', "fts(english).'fat' & 'cat'"]])).toEqual([1]);
    expect(await ids([['words', 'plfts(english).fat cats']])).toEqual([1]);
    expect(await ids([['words', 'phfts(english).cats ate']])).toEqual([1]);
    expect(await ids([['words', 'phfts(english).ate cats']])).toEqual([]);
    expect(await ids([['words', 'wfts(english).cats -fat']])).toEqual([2]);
    expect(await ids([['words', 'not.wfts(english).cat']])).toEqual([3]);
    // A text column is searched through to_tsvector, with the language given or the default.
    expect(await ids([['body', 'plfts(english).cat']])).toEqual([1, 2]);
    expect(await ids([['body', 'fts.fox']])).toEqual([3]);
  });

  it('or and and trees hold every operator, {…} lists and quoted ranges included', async () => {
    expect(await ids([['or', '(name.ilike(all).{AW*,*las},span.sl."[3,5)")']])).toEqual([1, 3]);
    expect(await ids([['or', '(tags.ov.{blue},flag.is.null)']])).toEqual([2, 3, 4]);
    expect(await ids([['and', '(id.gte.2,not.or(flag.is.false,name.match.odd))']])).toEqual([3]);
    // Row 4's words are null: null and true is null, and not null keeps nothing.
    expect(await ids([['not.and', '(words.fts(english).cat,flag.isdistinct.false)']])).toEqual([
      2, 3,
    ]);
  });

  it('answers a filter it cannot parse in the words of PostgREST’s parser', async () => {
    expect(await get([['name', '0']])).toEqual({
      status: 400,
      body: pgrstError(
        'PGRST100',
        '"failed to parse filter (0)" (line 1, column 1)',
        'unexpected "0" expecting "not" or operator (eq, gt, ...)',
      ),
    });
    expect(await get([['flag', 'is.maybe']])).toEqual({
      status: 400,
      body: pgrstError(
        'PGRST100',
        '"failed to parse filter (is.maybe)" (line 1, column 4)',
        'unexpected "m" expecting isVal: (null, not_null, true, false, unknown)',
      ),
    });
    expect(await get([['or', '()']])).toEqual({
      status: 400,
      body: pgrstError(
        'PGRST100',
        '"failed to parse logic tree (())" (line 1, column 4)',
        'unexpected ")" expecting field name (* or [a..z0..9_$]), negation operator (not) or logic operator (and, or)',
      ),
    });
  });
});
