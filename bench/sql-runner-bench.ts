import { cpuMs } from './cpu-usage';
import { query, type SqlDatabase } from '../shared/db/named-sql';
import { initOrm } from '../shared/db/orm';
import { OrmSql } from '../shared/db/orm-sql';
import { SqlPool } from '../shared/db/sql-pool';

/**
 * What each SQL runner costs on the hot path: the sorting actor's command is one named statement in
 * autocommit (docs/architecture.md, "The wall actor"). The same trivial statement (so the runner's own
 * cost shows, not PostgreSQL's) on SqlPool (a plain pg pool) and on OrmSql (the ORM's knex pool),
 * one caller after another and 8 at once (8 walls), prepared as the worker runs it. Prints ms per
 * statement (p50, p99) and this process's CPU ms per statement.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/sql-runner-bench.ts [n]
 */
const probe = query<{ a: number }, { b: number }>('bench-runner-probe', 'select :a::int + 1 as b');

async function measure(db: SqlDatabase, n: number, callers: number): Promise<{ p50: number; p99: number; cpuPerStatementMs: number }> {
  for (let i = 0; i < 200; i++) await probe(db, { a: i }); // warm: connections open, statements prepared
  const samples: number[] = [];
  const cpuBefore = cpuMs(process.pid)!;
  let next = 0;
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (next < n) {
        const a = next++;
        const t = performance.now();
        await probe(db, { a });
        samples.push(performance.now() - t);
      }
    }),
  );
  const cpu = cpuMs(process.pid)! - cpuBefore;
  samples.sort((x, y) => x - y);
  const at = (q: number) => Number(samples[Math.min(samples.length - 1, Math.floor(q * samples.length))].toFixed(3));
  return { p50: at(0.5), p99: at(0.99), cpuPerStatementMs: Number((cpu / n).toFixed(4)) };
}

async function main(): Promise<void> {
  const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const n = Number(process.argv[2] ?? 20_000);
  const orm = await initOrm(url, 8);
  const pool = new SqlPool(url, { max: 8, acquireTimeoutMs: 5_000, applicationName: 'bench:sql-runner', prepared: true }, console);
  try {
    for (const callers of [1, 8]) {
      // Alternated, twice each, so a change in the machine's load shows as a spread, not as a difference.
      for (const round of [1, 2]) {
        for (const [name, db] of [['SqlPool', pool], ['OrmSql', OrmSql.of(orm.em, true)]] as const) {
          console.log(JSON.stringify({ runner: name, callers, round, n, ...(await measure(db, n, callers)) }));
        }
      }
    }
  } finally {
    await pool.close();
    await orm.close();
  }
}

void main();
