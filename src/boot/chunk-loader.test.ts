import { describe, expect, it } from 'vitest';

import {
  createChunkLoader,
  pageScripts,
  resolveChunk,
  type ChunkFactory,
  type ChunkGraph,
  type ChunkLoader,
  type ScriptHost,
} from './chunk-loader';

/**
 * A page whose scripts arrive when the test says so: `scripts` holds what is being fetched,
 * `arrive(url)` runs it (its `define` calls, the chunks in `bodies`) and settles it.
 */
function fakePage(bodies: Record<string, [id: string, factory: ChunkFactory][]>) {
  const pending = new Map<string, (error?: Error) => void>();
  const requested: string[] = [];
  let loader: ChunkLoader | undefined;
  const host: ScriptHost = {
    addScript(url, settled) {
      requested.push(url);
      pending.set(url, settled);
    },
  };
  return {
    host,
    requested,
    use(created: ChunkLoader) {
      loader = created;
      return created;
    },
    arrive(url: string) {
      const settled = pending.get(url);
      if (!settled || !loader) throw new Error(`${url} was not requested`);
      pending.delete(url);
      for (const [id, factory] of bodies[url] ?? []) loader.define(id, factory);
      settled();
    },
    fail(url: string) {
      const settled = pending.get(url);
      if (!settled) throw new Error(`${url} was not requested`);
      pending.delete(url);
      settled(new Error(`net::ERR_FAILED ${url}`));
    },
  };
}

/** entry (in the shell) → list (lazy) → rows (lazy, shared) ; entry → shared (in the shell). */
const GRAPH: ChunkGraph = {
  ids: ['assets/entry.js', 'assets/shared.js', 'assets/list.js', 'assets/rows.js'],
  urls: ['', '', '/assets/list-1.js', '/assets/rows-1.js'],
  imports: [[1], [], [3], []],
};

const exporting =
  (values: Record<string, unknown>): ChunkFactory =>
  (_require, exports) => {
    Object.assign(exports, values);
  };

describe('resolveChunk', () => {
  it('resolves a specifier against the chunk that asks', () => {
    expect(resolveChunk('assets/list.js', './rows.js')).toBe('assets/rows.js');
    expect(resolveChunk('assets/deep/list.js', '../rows.js')).toBe('assets/rows.js');
  });

  it('refuses a bare or absolute specifier', () => {
    expect(() => resolveChunk('assets/list.js', 'react')).toThrow(/not a relative path/);
    expect(() => resolveChunk('assets/list.js', '/assets/rows.js')).toThrow(/not a relative/);
  });
});

describe('createChunkLoader', () => {
  it('runs a chunk once, after what it requires, and gives its exports', () => {
    const page = fakePage({});
    const loader = page.use(createChunkLoader(GRAPH, page.host));
    const ran: string[] = [];
    loader.define('assets/shared.js', (_require, exports) => {
      ran.push('shared');
      exports.answer = 42;
    });
    loader.define('assets/entry.js', (require, exports) => {
      const shared = require('./shared.js') as { answer: number };
      ran.push('entry');
      exports.doubled = shared.answer * 2;
      // A second require gives the same exports without running it again.
      exports.same = require('./shared.js') === shared;
    });

    expect(loader.require('assets/entry.js')).toEqual({ doubled: 84, same: true });
    expect(loader.require('assets/entry.js')).toEqual({ doubled: 84, same: true });
    expect(ran).toEqual(['shared', 'entry']);
    expect(page.requested).toEqual([]);
  });

  it('gives module.exports when a chunk replaces it', () => {
    const page = fakePage({});
    const loader = page.use(createChunkLoader(GRAPH, page.host));
    loader.define('assets/shared.js', (_require, _exports, module) => {
      module.exports = 'replaced';
    });
    expect(loader.require('assets/shared.js')).toBe('replaced');
  });

  it('fetches a chunk and every chunk it needs at once, and runs it when all are here', async () => {
    const page = fakePage({
      '/assets/list-1.js': [
        [
          'assets/list.js',
          (require, exports) => {
            exports.rows = (require('./rows.js') as { count: number }).count;
          },
        ],
      ],
      '/assets/rows-1.js': [['assets/rows.js', exporting({ count: 3 })]],
    });
    const loader = page.use(createChunkLoader(GRAPH, page.host));
    loader.define('assets/entry.js', (require, exports) => {
      exports.list = require.load('./list.js');
    });
    const { list } = loader.require('assets/entry.js') as { list: Promise<unknown> };
    let settled = false;
    void list.then(() => (settled = true));

    // Both scripts are asked for before either arrives: no waterfall.
    expect(page.requested).toEqual(['/assets/list-1.js', '/assets/rows-1.js']);
    page.arrive('/assets/list-1.js');
    await Promise.resolve();
    expect(settled).toBe(false);
    page.arrive('/assets/rows-1.js');

    await expect(list).resolves.toEqual({ rows: 3 });
    // A second load of the same chunk fetches nothing more.
    await expect(loader.load('assets/list.js')).resolves.toEqual({ rows: 3 });
    expect(page.requested).toHaveLength(2);
  });

  it('asks once for a chunk two loads need at the same time', async () => {
    const page = fakePage({
      '/assets/list-1.js': [['assets/list.js', exporting({ list: true })]],
      '/assets/rows-1.js': [['assets/rows.js', exporting({ rows: true })]],
    });
    const loader = page.use(createChunkLoader(GRAPH, page.host));
    const both = Promise.all([loader.load('assets/list.js'), loader.load('assets/rows.js')]);
    expect(page.requested).toEqual(['/assets/list-1.js', '/assets/rows-1.js']);
    page.arrive('/assets/rows-1.js');
    page.arrive('/assets/list-1.js');
    await expect(both).resolves.toEqual([{ list: true }, { rows: true }]);
  });

  it('tries a script again after it failed to load (offline, then online)', async () => {
    const page = fakePage({ '/assets/rows-1.js': [['assets/rows.js', exporting({ ok: 1 })]] });
    const loader = page.use(createChunkLoader(GRAPH, page.host));

    const first = loader.load('assets/rows.js');
    page.fail('/assets/rows-1.js');
    await expect(first).rejects.toThrow(/net::ERR_FAILED/);

    const second = loader.load('assets/rows.js');
    expect(page.requested).toEqual(['/assets/rows-1.js', '/assets/rows-1.js']);
    page.arrive('/assets/rows-1.js');
    await expect(second).resolves.toEqual({ ok: 1 });
  });

  it('rejects a load whose script ran but did not define the chunk (a stale file)', async () => {
    const page = fakePage({ '/assets/rows-1.js': [] });
    const loader = page.use(createChunkLoader(GRAPH, page.host));
    const load = loader.load('assets/rows.js');
    page.arrive('/assets/rows-1.js');
    await expect(load).rejects.toThrow(/did not define chunk assets\/rows\.js/);
  });

  it('throws the same error again for a chunk whose code threw', () => {
    const page = fakePage({});
    const loader = page.use(createChunkLoader(GRAPH, page.host));
    let runs = 0;
    loader.define('assets/shared.js', () => {
      runs += 1;
      throw new TypeError('broken chunk');
    });
    expect(() => loader.require('assets/shared.js')).toThrow('broken chunk');
    expect(() => loader.require('assets/shared.js')).toThrow('broken chunk');
    expect(runs).toBe(1);
  });

  it('gives a chunk in a cycle the exports so far, as CommonJS does', () => {
    const graph: ChunkGraph = { ids: ['a.js', 'b.js'], urls: ['', ''], imports: [[1], [0]] };
    const page = fakePage({});
    const loader = page.use(createChunkLoader(graph, page.host));
    loader.define('a.js', (require, exports) => {
      exports.early = 'a';
      exports.fromB = require('./b.js');
    });
    loader.define('b.js', (require, exports) => {
      exports.sawA = { ...(require('./a.js') as object) };
    });
    expect(loader.require('a.js')).toEqual({ early: 'a', fromB: { sawA: { early: 'a' } } });
  });

  it('refuses chunks that are not in this build, and requires of what is not here', async () => {
    const page = fakePage({});
    const loader = page.use(createChunkLoader(GRAPH, page.host));
    expect(() => loader.define('assets/other-build.js', () => {})).toThrow(/No chunk/);
    expect(() => loader.require('assets/rows.js')).toThrow(/required before it was loaded/);
    await expect(loader.load('assets/nowhere.js')).rejects.toThrow(/No chunk/);
    expect(page.requested).toEqual([]);
  });

  it('keeps the first definition of a chunk defined twice', () => {
    const page = fakePage({});
    const loader = page.use(createChunkLoader(GRAPH, page.host));
    loader.define('assets/shared.js', exporting({ from: 'first' }));
    loader.define('assets/shared.js', exporting({ from: 'second' }));
    expect(loader.require('assets/shared.js')).toEqual({ from: 'first' });
  });
});

describe('pageScripts', () => {
  it('adds a classic script to <head> and removes it once it ran or failed', () => {
    const host = pageScripts(document);
    const outcomes: (Error | undefined)[] = [];
    host.addScript('/assets/a-1.js', (error) => outcomes.push(error));
    host.addScript('/assets/b-1.js', (error) => outcomes.push(error));
    const [a, b] = [...document.head.querySelectorAll('script')];
    expect(a?.getAttribute('src')).toBe('/assets/a-1.js');
    expect(a?.type).toBe('');
    expect(b?.getAttribute('src')).toBe('/assets/b-1.js');

    a?.dispatchEvent(new Event('load'));
    b?.dispatchEvent(new Event('error'));
    expect(outcomes[0]).toBeUndefined();
    expect(outcomes[1]?.message).toMatch(/Could not load the app's code at \/assets\/b-1\.js/);
    expect(document.head.querySelectorAll('script')).toHaveLength(0);
  });
});
