import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { NamedStatement } from '../../shared/db/named-sql';
import { sourceFiles } from './sql-literals';

/*
 * The hot statements (docs/architecture.md, "Plans that cannot go quadratic"): what the wall commands
 * send (the API's wall lookup, the actor's load, reads and one fenced write per command), the wall read
 * hubs poll, and every statement of the worker kinds that run per event (the relay, the consumers'
 * batches, the light gateway, the labels render ahead, the webhook deliveries; not the sweeper's
 * timers). Their SQL is committed as a plain file, docs/sql/hot-statements.sql, so a change to one is
 * a diff a reviewer reads with its plan; test/unit/hot-statements.test.ts fails while the file and the
 * code differ. After changing a hot statement: `npm run sql:snapshot`, then review the diff and the
 * plan (hot-plans.test.ts, EXPLAIN).
 */

const ROOT = join(__dirname, '..', '..');

/** The query modules of the hot path: found by folder, so a statement moving between them stays covered. */
export function hotModules(): string[] {
  const workers = sourceFiles(ROOT, ['workers']).filter((f) => f.endsWith('.queries.ts') && !f.startsWith('workers/sweeper/'));
  return ['services/api/commands/wall-resolver.queries.ts', 'services/api/use-cases/walls/wall-view.queries.ts', ...workers];
}

export const SNAPSHOT_FILE = join(ROOT, 'docs', 'sql', 'hot-statements.sql');

/** One statement as the snapshot holds it: its name, its module, its SQL with named parameters. */
export interface HotStatement {
  name: string;
  module: string;
  sql: string;
}

/**
 * Every named statement the hot modules export, by name: neither the order of exports (it differs
 * between transpilers) nor the module a statement lives in changes the file.
 */
export function hotStatements(): HotStatement[] {
  return hotModules()
    .flatMap((module) =>
      Object.values(require(join(ROOT, module)) as Record<string, unknown>)
        .map((v) => (v as { statement?: unknown } | null)?.statement)
        .filter((s): s is NamedStatement => s instanceof NamedStatement)
        .map((s) => ({ name: s.name, module, sql: s.sql.replace(/^\s*\n/, '').replace(/\s+$/, '') })),
    )
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

const HEADER = `-- The hot statements of the service, by name, generated from their query modules by \`npm run sql:snapshot\`:
-- the wall commands (the API's wall lookup; the actor's load, reads and fenced write), the wall read
-- hubs poll, the relay, the consumers' batches, the light gateway, the labels render ahead and the
-- webhook deliveries (every *.queries.ts of workers/ but the sweeper's). A test
-- (test/unit/hot-statements.test.ts) fails while this file and the code differ: a changed statement is
-- reviewed here, with its plan (EXPLAIN, and test/integration/hot-plans.test.ts for the actor's).
-- Parameters are named (:wallId); the driver numbers them.
`;

export function renderSnapshot(statements: HotStatement[]): string {
  return [HEADER, ...statements.map((s) => `\n-- name: ${s.name}\n${s.sql};\n`)].join('');
}

/** The snapshot's statements by name (what the committed file says). */
export function parseSnapshot(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const block of text.split(/^-- name: /m).slice(1)) {
    const newline = block.indexOf('\n');
    const name = block.slice(0, newline).trim();
    const sql = block.slice(newline + 1).replace(/;\s*$/, '');
    out.set(name, sql);
  }
  return out;
}

/** What differs between the code's statements and the snapshot's, one line per statement. */
export function snapshotDifferences(code: HotStatement[], snapshot: Map<string, string>): string[] {
  const out: string[] = [];
  for (const s of code) {
    const committed = snapshot.get(s.name);
    if (committed === undefined) out.push(`${s.name} (${s.module}): new, not in the snapshot`);
    else if (committed !== s.sql) out.push(`${s.name} (${s.module}): its SQL differs from the snapshot's`);
  }
  const names = new Set(code.map((s) => s.name));
  for (const name of snapshot.keys()) if (!names.has(name)) out.push(`${name}: in the snapshot, no longer in the code`);
  return out;
}

export function readSnapshot(): string {
  return readFileSync(SNAPSHOT_FILE, 'utf8');
}

if (require.main === module) {
  if (!process.argv.includes('--write')) {
    process.stdout.write(renderSnapshot(hotStatements()));
  } else {
    writeFileSync(SNAPSHOT_FILE, renderSnapshot(hotStatements()));
    process.stdout.write(`wrote ${SNAPSHOT_FILE}\n`);
  }
}
