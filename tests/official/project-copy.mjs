// The supabase/ directory a suite's devstack starts on: a copy of the suite's own (its
// config.toml, migrations, seed), so the checkout is never written to, with stand-ins for
// extensions the devstack's engines do not have (PostGIS: postgrest-js creates a table with a
// geometry column; there it becomes text, and the one test of PostGIS output fails as it must).
import { spawn } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

function standInPostgis(sql) {
  return sql
    .replace(/create extension if not exists postgis[^;]*;/gi, '-- (devstack: no PostGIS)')
    .replace(/extensions\.geometry\s*\([^)]*\)/gi, 'text');
}

export async function prepareProjectDir(packageDir, suite, work, log) {
  const source = join(packageDir, 'test', 'supabase');
  if (suite.generateKeys && !existsSync(join(source, 'signing_keys.json'))) {
    // The suite's own setup step, as its `test:generate-keys` target runs it.
    await new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [suite.generateKeys], { cwd: packageDir });
      child.stdout.on('data', (c) => log.write(c));
      child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error('keygen failed'))));
    });
  }
  const target = join(work, 'supabase');
  cpSync(source, target, { recursive: true });
  if (suite.standIns.postgis) {
    const migrations = join(target, 'migrations');
    for (const name of existsSync(migrations) ? readdirSync(migrations) : []) {
      const path = join(migrations, name);
      writeFileSync(path, standInPostgis(readFileSync(path, 'utf8')));
    }
  }
  return target;
}
