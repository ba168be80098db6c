// Vite plugin: the built app as classic scripts rather than ES modules, so Chromium can start a
// new tab from V8's code cache (src/boot/chunk-loader.ts says why, with the figures).
//
// Rolldown builds the chunks as CommonJS (vite.config.ts: output.format 'cjs'): a chunk
// imports with `require("./x.js")`, exports through `exports`, and a dynamic import is
// `Promise.resolve().then(() => require("./x.js"))`. This plugin then
// - wraps each chunk in `__outpostChunks.define(id, function (require, exports, module) {…})`,
//   with its dynamic imports turned into `require.load("./x.js")`, which fetches the chunk and
//   every chunk it needs at once;
// - puts the loader, the entry chunk and every chunk it imports statically (the app shell) in
//   one script, which index.html loads with `defer` instead of `type="module"`;
// - names every script by a hash of its final bytes (the worker precaches hashed files without
//   a revision, so the same name must never carry other bytes).
// Anything it does not know how to turn into a classic script (an `import`, `import.meta`, a
// `require` of a chunk that is not a static import) fails the build rather than the page.
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';

import { build } from 'rolldown';
import type { OutputBundle, OutputChunk } from 'rolldown';
import { parseAst, type Plugin } from 'vite';

import { resolveChunk, type ChunkGraph } from '../src/boot/chunk-loader';
import { START_GLOBAL } from '../src/boot/first-visit';

const LOADER = fileURLToPath(new URL('../src/boot/chunk-loader.ts', import.meta.url));
/** The global the chunks' scripts define themselves on (chunk-loader.ts, installChunkLoader). */
const GLOBAL = '__outpostChunks';

interface Node {
  type: string;
  start: number;
  end: number;
  [key: string]: unknown;
}

interface Edit {
  start: number;
  end: number;
  text: string;
}

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && typeof (value as Node).type === 'string';
}

function walk(node: Node, visit: (node: Node) => boolean | void): void {
  if (visit(node) === false) return;
  for (const value of Object.values(node)) {
    if (Array.isArray(value)) {
      for (const item of value) if (isNode(item)) walk(item, visit);
    } else if (isNode(value)) {
      walk(value, visit);
    }
  }
}

/** `require("<specifier>")`: the specifier, else undefined. */
function requiredSpecifier(node: Node): string | undefined {
  const callee = node.callee as Node | undefined;
  const [argument, ...rest] = (node.arguments as Node[] | undefined) ?? [];
  if (node.type !== 'CallExpression' || callee?.type !== 'Identifier') return undefined;
  if (callee.name !== 'require' || rest.length > 0 || argument?.type !== 'Literal')
    return undefined;
  return typeof argument.value === 'string' ? argument.value : undefined;
}

/** `Promise.resolve().then(() => require("<specifier>"))`: rolldown's dynamic import. */
function dynamicImportSpecifier(node: Node): string | undefined {
  if (node.type !== 'CallExpression') return undefined;
  const callee = node.callee as Node;
  const [callback, ...rest] = node.arguments as Node[];
  if (callee.type !== 'MemberExpression' || callee.computed) return undefined;
  if ((callee.property as Node).type !== 'Identifier') return undefined;
  if ((callee.property as Node & { name: string }).name !== 'then' || rest.length > 0) {
    return undefined;
  }
  const resolved = callee.object as Node;
  if (resolved.type !== 'CallExpression' || (resolved.arguments as Node[]).length > 0) {
    return undefined;
  }
  const promise = resolved.callee as Node;
  if (promise.type !== 'MemberExpression' || promise.computed) return undefined;
  const object = promise.object as Node & { name?: string };
  const property = promise.property as Node & { name?: string };
  if (object.name !== 'Promise' || property.name !== 'resolve') return undefined;
  if (callback?.type !== 'ArrowFunctionExpression' || (callback.params as Node[]).length > 0) {
    return undefined;
  }
  return isNode(callback.body) ? requiredSpecifier(callback.body) : undefined;
}

/**
 * Vite's preload helper around a dynamic import with nothing to preload (build.modulePreload is
 * false): `__vitePreload(() => Promise.resolve().then(() => require("./x.js"))…, void 0)`. The
 * helper calls its function in a microtask, so every `import()` of the app started fetching
 * only after the code that asked for it had run to its end: the first screen's code, asked for
 * first thing by the app shell's entry, went out after the whole shell (~50 ms in a new tab).
 * With nothing to preload, the helper does nothing else but dispatch `vite:preloadError`, which
 * the app does not listen to; so the call becomes a call of its function, and the import's
 * `require.load` adds the scripts at once. Gives the function, else undefined.
 */
function preloadHelperCallback(node: Node): Node | undefined {
  // The helper by its name, or inlined where it is used once (a function expression).
  const callee = (node.callee as Node | undefined)?.type;
  if (node.type !== 'CallExpression') return undefined;
  if (callee !== 'Identifier' && callee !== 'FunctionExpression') return undefined;
  const [callback, deps, ...rest] = node.arguments as Node[];
  if (rest.length > 0 || deps?.type !== 'UnaryExpression' || deps.operator !== 'void') {
    return undefined;
  }
  if (callback?.type !== 'ArrowFunctionExpression' || (callback.params as Node[]).length > 0) {
    return undefined;
  }
  let imports = false;
  walk(callback, (inner) => {
    if (dynamicImportSpecifier(inner) !== undefined) imports = true;
    return !imports;
  });
  return imports ? callback : undefined;
}

/** A chunk's CommonJS code in its `define` call, its dynamic imports turned into loads. */
export function wrapChunk(
  id: string,
  code: string,
  { imports, dynamicImports }: { imports: string[]; dynamicImports: string[] },
): string {
  const edits: Edit[] = [];
  const fail = (node: Node, why: string): never => {
    const at = code.slice(node.start, Math.min(node.end, node.start + 80));
    throw new Error(`classic scripts: ${id}: ${why}: ${at}`);
  };
  walk(parseAst(code) as unknown as Node, (node) => {
    const helped = preloadHelperCallback(node);
    if (helped) {
      // `helper(() => …, void 0)` → `(() => …)()`; the import inside is edited as any other.
      edits.push({ start: node.start, end: helped.start, text: '(' });
      edits.push({ start: helped.end, end: node.end, text: ')()' });
      return true;
    }
    const loaded = dynamicImportSpecifier(node);
    if (loaded !== undefined) {
      if (!dynamicImports.includes(resolveChunk(id, loaded))) {
        fail(node, 'a dynamic import of a chunk the build does not list');
      }
      edits.push({
        start: node.start,
        end: node.end,
        text: `require.load(${JSON.stringify(loaded)})`,
      });
      return false;
    }
    const required = requiredSpecifier(node);
    if (required !== undefined && !imports.includes(resolveChunk(id, required))) {
      fail(node, 'a require of something that is not one of its static imports');
    }
    // A library's own import() of what may not be there (supabase-js tries
    // "@opentelemetry/api" and goes on without it) works in a classic script as in a module;
    // an import() of one of our chunks must have become a load.
    const source = node.source as Node | undefined;
    if (node.type === 'ImportExpression' && source?.type === 'Literal') {
      if (/^\.\.?\//.test(String(source.value))) fail(node, 'an import() of a chunk left');
    }
    if (node.type === 'MetaProperty') fail(node, 'import.meta, which a classic script has not');
    if (/^(Import|Export)[A-Za-z]*Declaration$/.test(node.type)) {
      fail(node, 'an import or export statement (is output.format "cjs"?)');
    }
    return true;
  });
  let body = code;
  for (const edit of edits.sort((a, b) => b.start - a.start)) {
    body = body.slice(0, edit.start) + edit.text + body.slice(edit.end);
  }
  // Strict, as the ES module it was; the newline ends a last line that is a // comment.
  return `${GLOBAL}.define(${JSON.stringify(id)},function(require,exports,module){"use strict";${body}\n});`;
}

/** `assets/name-<hash of the bytes>.js`. */
function hashedName(chunk: OutputChunk, source: string, name = chunk.name): string {
  const hash = createHash('sha256').update(source).digest('base64url').slice(0, 8);
  const dir = chunk.fileName.includes('/') ? chunk.fileName.replace(/\/[^/]*$/, '/') : '';
  return `${dir}${name}-${hash}.js`;
}

/** The loader (src/boot/chunk-loader.ts) as a script: defines `installChunkLoader` locally. */
async function loaderScript(): Promise<string> {
  const { output } = await build({
    input: LOADER,
    write: false,
    logLevel: 'silent',
    output: { format: 'iife', name: 'outpostLoader', minify: true },
  });
  const [chunk] = output;
  if (!chunk || chunk.type !== 'chunk') throw new Error('classic scripts: no loader script');
  return chunk.code;
}

export function classicScripts(): Plugin {
  return {
    name: 'outpost-classic-scripts',
    apply: 'build',
    enforce: 'post',
    generateBundle: {
      order: 'post',
      async handler(options, bundle: OutputBundle) {
        if (options.format !== 'cjs') {
          this.error(`classic scripts need output.format 'cjs', not '${options.format}'`);
        }
        const chunks = Object.values(bundle).filter(
          (file): file is OutputChunk => file.type === 'chunk',
        );
        const entries = chunks.filter((chunk) => chunk.isEntry);
        const [entry] = entries;
        if (!entry || entries.length !== 1) this.error('classic scripts: one entry chunk expected');
        const byId = new Map(chunks.map((chunk) => [chunk.fileName, chunk]));

        // The app shell: the entry and all it imports statically.
        const shell = new Set<string>();
        const visit = (id: string) => {
          if (shell.has(id)) return;
          shell.add(id);
          for (const imported of byId.get(id)?.imports ?? []) visit(imported);
        };
        visit(entry.fileName);

        const wrapped = new Map(
          chunks.map((chunk) => [chunk.fileName, wrapChunk(chunk.fileName, chunk.code, chunk)]),
        );
        const ids = chunks.map((chunk) => chunk.fileName);
        const base = this.environment.config.base;
        const names = new Map<string, string>();
        const graph: ChunkGraph = {
          ids,
          urls: chunks.map((chunk) => {
            if (shell.has(chunk.fileName)) return '';
            const name = hashedName(chunk, wrapped.get(chunk.fileName) ?? '');
            names.set(chunk.fileName, name);
            return `${base}${name}`;
          }),
          imports: chunks.map((chunk) => chunk.imports.map((id) => ids.indexOf(id))),
        };
        // The entry runs in a microtask right after the script's top level (the same task, so
        // no later), not inside it: with a DevTools client attached (DevTools open, Playwright,
        // Lighthouse), V8 captures a detailed stack for every Error made, and React DOM makes
        // five as it loads, so V8 re-parses each function then on the stack for its source
        // positions. Without the script's top level among them, that costs a new tab 35–43 ms
        // instead of 62 (measured in Chromium 150). A user without DevTools pays neither.
        const shellCode = [
          `(function(){${await loaderScript()}\noutpostLoader.installChunkLoader(${JSON.stringify(graph)});})();`,
          ...[...shell].map((id) => wrapped.get(id)),
          // On a first visit whose page is showing, once that page has painted
          // (src/boot/first-visit.ts sets how).
          `(globalThis.${START_GLOBAL}||queueMicrotask)(function(){${GLOBAL}.require(${JSON.stringify(entry.fileName)});});`,
        ].join('\n');
        const shellName = hashedName(entry, shellCode, 'shell');

        for (const chunk of chunks) delete bundle[chunk.fileName];
        for (const [id, name] of names) {
          this.emitFile({ type: 'asset', fileName: name, source: wrapped.get(id) ?? '' });
        }
        this.emitFile({ type: 'asset', fileName: shellName, source: shellCode });

        const html = bundle['index.html'];
        if (html?.type !== 'asset' || typeof html.source !== 'string') {
          this.error('classic scripts: no index.html in the bundle to point at the app shell');
        }
        const tag = new RegExp(
          `<script type="module" crossorigin src="${base}${entry.fileName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"></script>`,
        );
        if (!tag.test(html.source)) {
          this.error(`classic scripts: index.html does not load ${entry.fileName} as expected`);
        }
        if (/<link rel="modulepreload"/.test(html.source)) {
          this.error(
            'classic scripts: index.html preloads modules (is build.modulePreload false?)',
          );
        }
        html.source = html.source.replace(tag, `<script defer src="${base}${shellName}"></script>`);
      },
    },
  };
}
