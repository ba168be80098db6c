// `npm run types` writes supabase/database.types.ts from the migrations; `npm run types:check`
// (CI) regenerates it in memory and fails, showing where, when the committed file differs.
import { readFileSync, writeFileSync } from 'node:fs';

import { describeDifference, generateTypes, TYPES_FILE } from './gen-types';

async function main(): Promise<void> {
  const check = process.argv.includes('--check');
  const generated = await generateTypes();
  if (!check) {
    writeFileSync(TYPES_FILE, generated);
    console.log('wrote supabase/database.types.ts');
    return;
  }
  let committed = '';
  try {
    committed = readFileSync(TYPES_FILE, 'utf8');
  } catch {
    // A missing file is stale too.
  }
  const difference = describeDifference(generated, committed);
  if (difference === null) {
    console.log('supabase/database.types.ts is up to date');
    return;
  }
  console.error(difference);
  console.error('\nsupabase/database.types.ts is stale: run `npm run types` and commit it.');
  process.exitCode = 1;
}

await main();
