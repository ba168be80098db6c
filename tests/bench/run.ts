// `npm run bench`: runs every benchmark and prints its figures side by side.
import { benchSyncSql } from './sync-sql.bench';

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits });

const results = [];
for (const kind of ['pglite', 'postgres'] as const) {
  process.stdout.write(`sync SQL on ${kind}… `);
  const r = await benchSyncSql(kind);
  results.push(r);
  process.stdout.write('done\n');
}

console.log('\nsync SQL (100k tasks; pull pages of 1,000; push 1,000 patches in 2 batches)');
console.table(
  results.map((r) => ({
    engine: r.engine,
    'pull rows': fmt(r.pullRows),
    'pull pages': r.pullPages,
    'pull ms': fmt(r.pullMs),
    'pull rows/s': fmt(r.pullRowsPerSec),
    'push requests': r.pushRequests,
    'push applied': r.pushApplied,
    'push ms': fmt(r.pushMs),
  })),
);
