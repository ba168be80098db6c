// The command line of a production build against a local devstack, which the screenshot
// scripts, the browser benches and the update e2e spec each run as a child process (each with
// its own env: the devstack's URL and key, sometimes an app version).
import { join } from 'node:path';

import { LOCAL_BUILD_MODE } from './build-env';

/**
 * node's arguments for `vite build --mode devstack --outDir <outDir>` in the checkout at
 * `root` (scripts/build-env.ts says why the mode); `emptyOutDir` when the folder is reused.
 */
export function devstackBuildArgs(
  root: string,
  outDir: string,
  { emptyOutDir = false }: { emptyOutDir?: boolean } = {},
): string[] {
  return [
    join(root, 'node_modules/vite/bin/vite.js'),
    'build',
    '--mode',
    LOCAL_BUILD_MODE,
    '--outDir',
    outDir,
    ...(emptyOutDir ? ['--emptyOutDir'] : []),
  ];
}
