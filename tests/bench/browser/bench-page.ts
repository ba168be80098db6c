// A bench page of the browser benches: a module of tests/bench/browser/ bundled with esbuild
// into the app's build folder under /__bench/, with the HTML page that loads it, so it is
// served on the app's origin (its IndexedDB, its worker's scope).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { build } from 'esbuild';

/** What one bench page is: its module, and the page's names, title and body. */
export interface BenchPage {
  /** The module's file name in tests/bench/browser/. */
  entry: string;
  /** The bundle's and the page's file names under /__bench/. */
  script: string;
  html: string;
  title: string;
  /** Markup before the script (none by default). */
  body?: string;
  minify?: boolean;
}

/** Bundles `page` into `outDir`/__bench and writes its HTML beside it. */
export async function bundleBenchPage(outDir: string, page: BenchPage): Promise<void> {
  const dir = join(outDir, '__bench');
  mkdirSync(dir, { recursive: true });
  await build({
    entryPoints: [join(import.meta.dirname, page.entry)],
    outfile: join(dir, page.script),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: page.minify ?? false,
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'error',
  });
  writeFileSync(
    join(dir, page.html),
    `<!doctype html><meta charset="utf-8"><title>${page.title}</title>` +
      (page.body ?? '') +
      `<script type="module" src="/__bench/${page.script}"></script>`,
  );
}
