// The page a first visit paints before the app has loaded (index.html's template, rendered by
// the build) must be what the app then renders at its address, or the screen would jump when
// the app takes over.
import { renderToStaticMarkup } from 'react-dom/server';
import { afterEach, describe, expect, it } from 'vitest';

import {
  createTestServices,
  findHeading,
  renderApp,
  type TestServices,
} from '@/testing/app-harness';

import { FirstVisitPage } from './first-visit-page';

let services: TestServices | undefined;

afterEach(async () => {
  await services?.close();
  services = undefined;
});

/** `node` as markup with each element's attributes in name order (React sets an img's src last). */
function canonical(node: Node): string {
  if (node instanceof Text) return node.data;
  if (!(node instanceof Element)) return '';
  const attributes = [...node.attributes]
    .map(({ name, value }) => `${name}="${value}"`)
    .sort()
    .join(' ');
  const children = [...node.childNodes].map(canonical).join('');
  return `<${node.localName} ${attributes}>${children}</${node.localName}>`;
}

/** The frame of `root`: its class, skip link, header and main. */
function frameOf(root: ParentNode): Record<string, string> {
  const frame = root.querySelector('.app');
  const skip = root.querySelector('.skip-link');
  const header = root.querySelector('.app-header');
  const main = root.querySelector('main');
  if (!frame || !skip || !header || !main) throw new Error('no frame');
  // Focus management marks the heading after a navigation; the page has not navigated.
  main.querySelector('h1')?.removeAttribute('tabindex');
  return {
    frame: frame.className,
    skip: canonical(skip),
    header: canonical(header),
    main: canonical(main),
  };
}

describe('the first visit page', () => {
  it("is the frame and the welcome screen the app renders at '/' on a device nobody uses", async () => {
    services = createTestServices();
    const { router, container } = renderApp(services, '/');
    await findHeading('Welcome to Outpost');
    expect(`${router.state.location.pathname}${router.state.location.search}`).toBe(
      '/welcome?next=%2Flists',
    );
    const template = document.createElement('template');
    template.innerHTML = renderToStaticMarkup(<FirstVisitPage />);
    expect(frameOf(template.content)).toEqual(frameOf(container));
  });
});
