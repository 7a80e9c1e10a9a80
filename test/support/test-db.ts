import { Client as PgClient } from 'pg';

/** Connection details shared by the global setup and the per-worker environment. */
export const TEST_PG_BASE = process.env.TEST_PG_BASE ?? 'postgres://postgres@127.0.0.1:5432';

/**
 * Every jest run names its databases and Redis keys after its own id (set by the global setup and
 * inherited by the workers), so two runs on one machine never touch each other's data.
 */
export function testRunId(): string {
  const id = process.env.SORTING_TEST_RUN;
  if (!id) throw new Error('SORTING_TEST_RUN is not set: run the tests through jest (npm test).');
  return id;
}

export const TEST_DB_PREFIX = 'sorting_test_';

export function templateDbName(run = testRunId()): string {
  return `${TEST_DB_PREFIX}${run}_template`;
}

export function workerDbName(workerId: string | number, run = testRunId()): string {
  return `${TEST_DB_PREFIX}${run}_w${workerId}`;
}

export function redisPrefix(workerId: string | number, run = testRunId()): string {
  return `sorting-test-${run}-w${workerId}`;
}

export async function withAdmin<T>(fn: (pg: PgClient) => Promise<T>): Promise<T> {
  const pg = new PgClient({ connectionString: `${TEST_PG_BASE}/postgres` });
  await pg.connect();
  try {
    return await fn(pg);
  } finally {
    await pg.end();
  }
}

export async function dropDatabase(pg: PgClient, name: string): Promise<void> {
  await pg.query(`drop database if exists "${name}" with (force)`);
}

/** Databases of this run, or of earlier runs whose process is gone (a crashed or killed run). */
export async function staleTestDatabases(pg: PgClient, run: string): Promise<string[]> {
  const { rows } = await pg.query<{ datname: string }>('select datname from pg_database where datname like $1', [`${TEST_DB_PREFIX}%`]);
  return rows
    .map((r) => r.datname)
    .filter((name) => {
      const m = /^sorting_test_(\d+)_/.exec(name);
      if (!m) return true;
      if (m[1] === run) return true;
      try {
        process.kill(Number(m[1]), 0);
        return false; // that run is still going
      } catch {
        return true;
      }
    });
}
