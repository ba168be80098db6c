// Vite plugin: a browser's first visit paints the welcome screen before the app has loaded
// (src/boot/first-visit.ts says why and how). At build time it renders the first visit's page
// (src/app/first-visit-page.tsx, the app's own components) to HTML with Vite's SSR loader, and
// builds the script that shows it (src/boot/first-visit-script.ts, the page in it) as a classic
// script of its own, which index.html loads just before the app shell's, with the
// stylesheets asked for first. It runs after classic-scripts.ts has pointed index.html at the
// app shell's script.
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';

import { createElement, type ComponentType } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { build } from 'rolldown';
import { createServer, type Alias, type Plugin } from 'vite';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PAGE = '/src/app/first-visit-page.tsx';
const SCRIPT = fileURLToPath(new URL('../src/boot/first-visit-script.ts', import.meta.url));

/** The first visit's page as HTML, rendered by the app's own components. */
async function renderPage(alias: readonly Alias[]): Promise<string> {
  const server = await createServer({
    root: ROOT,
    configFile: false,
    logLevel: 'silent',
    appType: 'custom',
    resolve: { alias: alias.filter(({ find }) => typeof find === 'string') },
    server: { middlewareMode: true, hmr: false, ws: false },
    optimizeDeps: { noDiscovery: true, include: [] },
  });
  try {
    const module = await server.ssrLoadModule(PAGE);
    const page = module.FirstVisitPage as ComponentType | undefined;
    if (!page) throw new Error(`first visit: ${PAGE} exports no FirstVisitPage`);
    // React hoists a preload of the page's first image ahead of it: index.html's own icon
    // links do that job, and the app's render has no such element.
    return renderToStaticMarkup(createElement(page)).replace(/^(<link [^>]*\/>)+/, '');
  } finally {
    await server.close();
  }
}

/** src/boot/first-visit-script.ts as a minified classic script, with `page` in it. */
async function bootScript(alias: readonly Alias[], page: string): Promise<string> {
  const { output } = await build({
    input: SCRIPT,
    write: false,
    logLevel: 'silent',
    transform: { define: { __FIRST_VISIT_PAGE__: JSON.stringify(page) } },
    resolve: {
      alias: Object.fromEntries(
        alias.flatMap(({ find, replacement }) =>
          typeof find === 'string' ? [[find, replacement]] : [],
        ),
      ),
    },
    output: { format: 'iife', minify: true },
  });
  const [chunk] = output;
  if (!chunk || chunk.type !== 'chunk') throw new Error('first visit: no boot script');
  return chunk.code;
}

/**
 * index.html with the first visit's script loaded just before the app shell's (deferred scripts
 * run in order), and the stylesheets asked for before both: the page paints once they are
 * here, and with a cold cache they came after the shell's 400 kB.
 */
export function withFirstVisit(html: string, scriptUrl: string): string {
  const shell = /<script defer src="[^"]*\/shell-[^"]+\.js"><\/script>/.exec(html);
  if (!html.includes('<div id="root"></div>')) {
    throw new Error('first visit: index.html lost its <div id="root"></div>');
  }
  if (!shell) throw new Error('first visit: index.html does not load the app shell as expected');
  const stylesheets = html.match(/<link rel="stylesheet"[^>]*>/g) ?? [];
  return html
    .replace(/\s*<link rel="stylesheet"[^>]*>/g, '')
    .replace(
      shell[0],
      [...stylesheets, `<script defer src="${scriptUrl}"></script>`, shell[0]].join('\n    '),
    );
}

export function firstVisitPage(): Plugin {
  let alias: readonly Alias[] = [];
  let base = '/';
  return {
    name: 'outpost-first-visit',
    apply: 'build',
    enforce: 'post',
    configResolved(config) {
      alias = config.resolve.alias;
      base = config.base;
    },
    generateBundle: {
      order: 'post',
      async handler(_options, bundle) {
        const html = bundle['index.html'];
        if (html?.type !== 'asset' || typeof html.source !== 'string') {
          this.error('first visit: no index.html in the bundle');
        }
        const script = await bootScript(alias, await renderPage(alias));
        const hash = createHash('sha256').update(script).digest('base64url').slice(0, 8);
        const fileName = `assets/first-visit-${hash}.js`;
        this.emitFile({ type: 'asset', fileName, source: script });
        html.source = withFirstVisit(html.source, `${base}${fileName}`);
      },
    },
  };
}
