import { join } from 'node:path';
import { findSqlLiterals, findSqlLiteralsIn, sourceFiles, type SqlLiteral } from '../support/sql-literals';

/*
 * One way to write SQL beside the ORM (docs/architecture.md, "ORM or plain SQL"): every hand-written
 * statement is a `query()` of a query module (`*.queries.ts`); the migrations are SQL by nature. The
 * service's sources (services, shared, machines, workers) are scanned for SQL in string and template
 * literals; test/ and bench/ are not scanned (they read and set up rows by hand on purpose).
 */

const ROOT = join(__dirname, '..', '..');

/** Where SQL text belongs. */
const isSqlHome = (file: string) => file.endsWith('.queries.ts') || file.startsWith('shared/db/migrations/');

/**
 * The few places SQL text stays outside a query module: what the literal is (a pattern of its text)
 * and why no `query()` can hold it. An entry no literal matches any more fails too, so the list
 * never outlives its reasons.
 */
const EXCEPTIONS: { file: string; text: RegExp; reason: string }[] = [
  {
    file: 'shared/db/sql-pool.ts',
    text: /^(begin|commit|rollback)$/,
    reason: 'the runner itself: SqlDatabase.transaction opens and ends the transaction its statements run in',
  },
  {
    file: 'shared/db/orm.ts',
    text: /^(select 1 from pg_database where datname = \$1|create database " x ")$/,
    reason: 'ensureDatabase runs before any pool exists, on a connection to the maintenance database; CREATE DATABASE takes its name as an identifier, which no bound parameter carries',
  },
  {
    file: 'workers/pipeline/notifications.ts',
    text: /^listen x$/,
    reason: "LISTEN takes its channel as an identifier, not a parameter; the channels are the pipeline's own constants",
  },
];

const excepted = (hit: SqlLiteral) => EXCEPTIONS.some((e) => e.file === hit.file && e.text.test(hit.text));
const where = (hits: SqlLiteral[]) => hits.map((h) => `  ${h.file}:${h.line}  ${h.text}`).join('\n');

describe('SQL text lives in query modules', () => {
  const files = sourceFiles(ROOT, ['services', 'shared', 'machines', 'workers']);
  const hits = findSqlLiteralsIn(
    ROOT,
    files.filter((f) => !isSqlHome(f)),
  );

  it('finds no SQL in a string or template literal outside *.queries.ts and the migrations', () => {
    const offenders = hits.filter((h) => !excepted(h));
    if (offenders.length > 0) {
      throw new Error(
        `SQL text outside a query module (move each statement into a *.queries.ts as a query(), run on the runner that fits):\n${where(offenders)}`,
      );
    }
  });

  it('keeps no exception that no longer matches anything', () => {
    const stale = EXCEPTIONS.filter((e) => !hits.some((h) => h.file === e.file && e.text.test(h.text)));
    expect(stale.map((e) => `${e.file} ${e.text}`)).toEqual([]);
  });

  it('sees the statements of the query modules (the scan is not blind)', () => {
    const modules = files.filter((f) => f.endsWith('.queries.ts'));
    const seen = new Set(findSqlLiteralsIn(ROOT, modules).map((h) => h.file));
    expect(modules.length).toBeGreaterThan(10);
    expect(modules.filter((m) => !seen.has(m))).toEqual([]);
  });

  it('names the file and line of SQL in a use-case, in any literal form, and leaves prose, imports and comments alone', () => {
    const source = [
      "import { query } from '../db/named-sql';",
      '// select id from wall where client_id = ?',
      'const a = 1;',
      "const rows = em.execute('select id from wall where client_id = ?', [clientId]);",
      'const t = `update wall w set version = w.version + 1 from locked where w.id = locked.id`;',
      'const u = `select ${cols}',
      '  from orders o where o.id = ${id}`;',
      "const v = 'insert into failed_job (queue) values ($1)';",
      "throw new AppError('not-found', 'Select a slot from the list; order 12 is not in one.');",
      "log.info('the relay takes over; orders by id are published again');",
      "const w = \"SELECT id FROM wall WHERE name = 'x'\";",
    ].join('\n');
    expect(findSqlLiterals('services/api/use-cases/x.use-case.ts', source).map((h) => `${h.file}:${h.line}`)).toEqual([
      'services/api/use-cases/x.use-case.ts:4',
      'services/api/use-cases/x.use-case.ts:5',
      'services/api/use-cases/x.use-case.ts:6',
      'services/api/use-cases/x.use-case.ts:8',
      'services/api/use-cases/x.use-case.ts:11',
    ]);
  });
});
