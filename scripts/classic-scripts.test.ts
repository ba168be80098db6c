import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';

import type { RolldownOutput } from 'rolldown';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { classicScripts, wrapChunk } from './classic-scripts';
import { START_GLOBAL } from '../src/boot/first-visit';

const NONE = { imports: [], dynamicImports: [] };
const NONE_BUT_LAZY = { imports: [], dynamicImports: ['assets/lazy.js'] };

describe('wrapChunk', () => {
  it('wraps a chunk in its define call, strict, and ends a trailing line comment', () => {
    const wrapped = wrapChunk('assets/a.js', 'exports.x = 1;\n//# sourceMappingURL=a.js.map', NONE);
    expect(wrapped).toBe(
      '__outpostChunks.define("assets/a.js",function(require,exports,module){"use strict";' +
        'exports.x = 1;\n//# sourceMappingURL=a.js.map\n});',
    );
  });

  it("turns rolldown's dynamic imports into loads, and leaves static requires", () => {
    const code = [
      'const shared = require("./shared.js");',
      'const open = () => Promise.resolve().then(() => require("./lazy.js")).then((m) => m.x);',
    ].join('\n');
    const wrapped = wrapChunk('assets/a.js', code, {
      imports: ['assets/shared.js'],
      dynamicImports: ['assets/lazy.js'],
    });
    expect(wrapped).toContain('const shared = require("./shared.js");');
    expect(wrapped).toContain('const open = () => require.load("./lazy.js").then((m) => m.x);');
  });

  it("calls the function Vite's preload helper was given with nothing to preload, at once", () => {
    const code = [
      'const a = () => __vitePreload(() => Promise.resolve().then(() => require("./lazy.js")), void 0);',
      'const b = () => f(() => Promise.resolve().then(() => require("./lazy.js")).then((m) => m.x), void 0);',
      // Something to preload, or no import in it: not the helper's no-op, left as it is.
      'const c = () => f(() => Promise.resolve().then(() => require("./lazy.js")), deps);',
      'const d = () => f(() => g(), void 0);',
    ].join('\n');
    const wrapped = wrapChunk('assets/a.js', code, NONE_BUT_LAZY);
    expect(wrapped).toContain('const a = () => (() => require.load("./lazy.js"))();');
    expect(wrapped).toContain(
      'const b = () => (() => require.load("./lazy.js").then((m) => m.x))();',
    );
    expect(wrapped).toContain('const c = () => f(() => require.load("./lazy.js"), deps);');
    expect(wrapped).toContain('const d = () => f(() => g(), void 0);');
  });

  it('fails on what a classic script cannot do', () => {
    const refusals: [string, RegExp][] = [
      ['require("./other.js");', /a require of something that is not one of its static imports/],
      ['require("react");', /not a relative path/],
      ['Promise.resolve().then(() => require("./lazy.js"));', /a dynamic import .* not list/],
      ['import("./lazy.js");', /an import\(\) of a chunk left/],
      ['console.log(import.meta.url);', /import\.meta/],
      ['import x from "./shared.js"; x();', /an import or export statement/],
      ['export const x = 1;', /an import or export statement/],
    ];
    for (const [code, why] of refusals) {
      expect(() => wrapChunk('assets/a.js', code, NONE), code).toThrow(why);
    }
  });

  it("leaves a library's import() of a package that may not be there", () => {
    const code = 'const name = "@opentelemetry/api"; import(name).catch(() => undefined);';
    expect(wrapChunk('assets/a.js', code, NONE)).toContain('import(name)');
    expect(wrapChunk('assets/a.js', 'import("@opentelemetry/api");', NONE)).toContain('import(');
  });
});

/**
 * A fixture app: main → shared (static: both in the shell), main → lazy (dynamic), which needs
 * deep (a chunk of its own, fetched with it) and shared (in the shell already).
 */
const FIXTURE: Record<string, string> = {
  'index.html':
    '<!doctype html><html><head><script type="module" src="/main.js"></script></head><body></body></html>',
  'main.js': [
    "import { shared } from './shared.js';",
    'globalThis.log.push(`main ${shared}`);',
    "globalThis.opened = import('./lazy.js').then((m) => m.lazy(shared));",
  ].join('\n'),
  'shared.js': "globalThis.log.push('shared'); export const shared = 'S';",
  'lazy.js': [
    "import { deep } from './deep.js';",
    "import { shared } from './shared.js';",
    "globalThis.log.push('lazy');",
    'export const lazy = (from) => `${from}+${deep}+lazy${shared}`;',
  ].join('\n'),
  'deep.js':
    "globalThis.log.push('deep'); export const deep = 'D'; export const big = 'x'.repeat(10);",
};

describe('classicScripts, building an app', () => {
  let root = '';
  let files = new Map<string, string>();

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'classic-scripts-'));
    for (const [name, text] of Object.entries(FIXTURE)) writeFileSync(join(root, name), text);
    const result = (await build({
      root,
      configFile: false,
      logLevel: 'silent',
      plugins: [classicScripts()],
      build: {
        write: false,
        modulePreload: false,
        minify: false,
        // deep and shared are chunks of their own: the shell is two chunks, and lazy needs another
        // chunk fetched with it.
        rolldownOptions: {
          output: {
            format: 'cjs',
            codeSplitting: {
              groups: [{ name: (id) => /(deep|shared)\.js$/.exec(id)?.[1] ?? null }],
            },
          },
        },
      },
    })) as RolldownOutput;
    files = new Map(
      result.output.map((file) => [
        file.fileName,
        file.type === 'chunk' ? file.code : String(file.source),
      ]),
    );
  });

  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('loads one classic script from index.html, and names every script by its bytes', () => {
    const html = files.get('index.html') ?? '';
    const tags = [...html.matchAll(/<script[^>]*>/g)].map(([tag]) => tag);
    expect(tags).toEqual([
      expect.stringMatching(/^<script defer src="\/assets\/shell-[\w-]{8}\.js">$/),
    ]);
    const scripts = [...files.keys()].filter((name) => name.endsWith('.js'));
    expect(scripts).toHaveLength(3); // the shell (main, shared), lazy, deep
    for (const name of scripts) {
      const hash = createHash('sha256')
        .update(files.get(name) ?? '')
        .digest('base64url')
        .slice(0, 8);
      expect(name).toMatch(new RegExp(`^assets/[\\w-]+-${hash.replace(/-/g, '\\-')}\\.js$`));
    }
  });

  it('runs in a page as classic scripts: the shell at once, a dynamic import with all it needs', async () => {
    const html = files.get('index.html') ?? '';
    const shellUrl = /<script defer src="\/([^"]+)">/.exec(html)?.[1] ?? '';
    const requested: string[] = [];
    const page: Record<string, unknown> = { log: [] as string[], URL, queueMicrotask };
    page.document = {
      createElement: () => ({}) as Record<string, unknown>,
      head: {
        // A script element added to the page: fetched, then run as a classic script.
        append(script: { src: string; onload(): void; onerror(): void; remove(): void }) {
          const name = script.src.replace(/^\//, '');
          requested.push(name);
          script.remove = () => {};
          const code = files.get(name);
          queueMicrotask(() => {
            if (code === undefined) return script.onerror();
            runInNewContext(code, page, { filename: name });
            script.onload();
          });
        },
      },
    };
    // A classic script: vm.Script would throw a SyntaxError on an import or export.
    runInNewContext(files.get(shellUrl) ?? '', page, { filename: shellUrl });
    // The entry runs in a microtask right after the script's top level, not inside it.
    expect(page.log).toEqual([]);
    expect(requested).toEqual([]);
    await Promise.resolve();
    expect(page.log).toEqual(['shared', 'main S']);
    // The dynamic import's scripts were added while the entry ran, not a microtask after it
    // (Vite's preload helper, dropped).
    expect(requested).toHaveLength(2);

    await expect(page.opened).resolves.toBe('S+D+lazyS');
    expect(page.log).toEqual(['shared', 'main S', 'deep', 'lazy']);
    expect(requested).toHaveLength(2);
    expect(requested.every((name) => files.has(name) && name !== shellUrl)).toBe(true);
  });

  it("starts the entry with the first visit's start when it is set (src/boot/first-visit.ts)", async () => {
    const html = files.get('index.html') ?? '';
    const shellUrl = /<script defer src="\/([^"]+)">/.exec(html)?.[1] ?? '';
    let start: (() => void) | undefined;
    const page: Record<string, unknown> = {
      log: [] as string[],
      URL,
      queueMicrotask,
      [START_GLOBAL]: (run: () => void) => (start = run),
      document: { createElement: () => ({}), head: { append: () => undefined } },
    };
    runInNewContext(files.get(shellUrl) ?? '', page, { filename: shellUrl });
    await Promise.resolve();
    expect(page.log).toEqual([]);
    start?.();
    expect(page.log).toEqual(['shared', 'main S']);
  });
});
