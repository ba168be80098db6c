// The app's code as classic scripts, not ES modules (issue 16). Chromium keeps V8's compiled
// code for a classic script the service worker precached (the whole script, compiled when the
// worker installs), and uses it on every start: a new tab runs the app shell without parsing
// or compiling it. It keeps no such cache for module scripts: measured in Chromium 150, a
// 420 kB module took 150 ms to compile and run in every new tab, the same code as a classic
// script from the worker's cache 6–9 ms.
//
// So the build (scripts/classic-scripts.ts) emits each chunk as CommonJS in a function,
// `__outpostChunks.define(id, function (require, exports, module) { … })`, in a classic script.
// This loader runs them: `require` gives a chunk that is here (the chunks a chunk imports
// statically are always fetched with it), `require.load` fetches a chunk and every chunk it
// needs, all at once, and gives its exports (what `import()` was). It is the first code of the
// app shell's script, and the only code there that is not a chunk.

/** A chunk's code: what rolldown's CommonJS output is, in a function. */
export type ChunkFactory = (
  require: ChunkRequire,
  exports: Record<string, unknown>,
  module: { exports: unknown },
) => void;

/** `require` inside a chunk: specifiers are relative to the chunk ('./x.js'). */
export interface ChunkRequire {
  (specifier: string): unknown;
  /** Fetches the chunk and those it needs, then runs it: a dynamic `import()`. */
  load(specifier: string): Promise<unknown>;
}

/** Every chunk of the build, by index: its id, its URL, and the chunks it imports statically. */
export interface ChunkGraph {
  /** The chunk's file name in rolldown's output ('assets/list-route-a1b2c3d4.js'). */
  ids: string[];
  /** Where its script is ('/assets/list-route-e5f6a7b8.js'); '' for those in the app shell's. */
  urls: string[];
  /** Indexes of the chunks it imports statically. */
  imports: number[][];
}

/** Adds a classic script to the page; `settled` after it ran, or with why it could not load. */
export interface ScriptHost {
  addScript(url: string, settled: (error?: Error) => void): void;
}

export interface ChunkLoader {
  define(id: string, factory: ChunkFactory): void;
  /** Runs the chunk (once) and gives its exports; it must be here (defined). */
  require(id: string): unknown;
  load(id: string): Promise<unknown>;
}

/** The chunk a chunk at `from` means by `specifier` ('./x.js', '../x.js'). */
export function resolveChunk(from: string, specifier: string): string {
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) {
    throw new Error(`Chunk ${from} asks for "${specifier}", which is not a relative path`);
  }
  return new URL(specifier, `http://chunk.invalid/${from}`).pathname.slice(1);
}

export function createChunkLoader(graph: ChunkGraph, host: ScriptHost): ChunkLoader {
  const indexOf = new Map(graph.ids.map((id, index) => [id, index]));
  const factories = new Map<string, ChunkFactory>();
  const modules = new Map<string, { exports: unknown }>();
  /** A chunk whose code threw: it throws the same again, as a module that failed does. */
  const failed = new Map<string, unknown>();
  /** Scripts on their way. A failed one is forgotten, so a later load tries again. */
  const fetching = new Map<string, Promise<void>>();

  const index = (id: string): number => {
    const found = indexOf.get(id);
    if (found === undefined) throw new Error(`No chunk ${id} in this build`);
    return found;
  };

  const run = (id: string): unknown => {
    const done = modules.get(id);
    if (done) return done.exports;
    if (failed.has(id)) throw failed.get(id);
    const factory = factories.get(id);
    if (!factory) throw new Error(`Chunk ${id} is required before it was loaded`);
    const module: { exports: unknown } = { exports: {} };
    // Kept before it runs: a chunk in a cycle gets the exports so far, as in CommonJS.
    modules.set(id, module);
    const local = Object.assign((specifier: string) => run(resolveChunk(id, specifier)), {
      load: (specifier: string) => load(resolveChunk(id, specifier)),
    });
    try {
      factory(local, module.exports as Record<string, unknown>, module);
    } catch (error) {
      modules.delete(id);
      failed.set(id, error);
      throw error;
    }
    return module.exports;
  };

  /** `id` and every chunk it imports statically, directly or not. */
  const needed = (id: string): string[] => {
    const seen = new Set<number>();
    const visit = (at: number) => {
      if (seen.has(at)) return;
      seen.add(at);
      for (const next of graph.imports[at] ?? []) visit(next);
    };
    visit(index(id));
    return [...seen].map((at) => graph.ids[at] ?? '');
  };

  const fetchChunk = (id: string): Promise<void> => {
    if (factories.has(id)) return Promise.resolve();
    const pending = fetching.get(id);
    if (pending) return pending;
    const url = graph.urls[index(id)] ?? '';
    const fetched = new Promise<void>((resolve, reject) => {
      host.addScript(url, (error) => {
        if (!error && factories.has(id)) {
          resolve();
          return;
        }
        fetching.delete(id);
        reject(error ?? new Error(`${url} ran but did not define chunk ${id}`));
      });
    });
    fetching.set(id, fetched);
    return fetched;
  };

  const load = async (id: string): Promise<unknown> => {
    await Promise.all(needed(id).map(fetchChunk));
    return run(id);
  };

  return {
    define(id, factory) {
      index(id); // a chunk of another build (a stale script) is refused
      if (!factories.has(id)) factories.set(id, factory);
    },
    require: run,
    load,
  };
}

/** The page's scripts: each chunk's script is added to <head>, and removed once it ran. */
export function pageScripts(document: Document): ScriptHost {
  return {
    addScript(url, settled) {
      const script = document.createElement('script');
      script.src = url;
      script.onload = () => {
        script.remove();
        settled();
      };
      script.onerror = () => {
        script.remove();
        settled(new Error(`Could not load the app's code at ${url}`));
      };
      document.head.append(script);
    },
  };
}

/**
 * The app shell's first lines (scripts/classic-scripts.ts bundles this module as a script of its
 * own): the loader, where every chunk's script finds it.
 */
export function installChunkLoader(graph: ChunkGraph): ChunkLoader {
  const loader = createChunkLoader(graph, pageScripts(document));
  (globalThis as { __outpostChunks?: ChunkLoader }).__outpostChunks = loader;
  return loader;
}
