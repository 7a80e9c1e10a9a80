import { Client as PgClient } from 'pg';

/** Connection details shared by the global setup and the per-worker environment. */
export const TEST_PG_BASE = process.env.TEST_PG_BASE ?? 'postgres://postgres@127.0.0.1:5432';
export const TEMPLATE_DB = 'sorting_test_template';

export function workerDbName(workerId: string | number): string {
  return `sorting_test_w${workerId}`;
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
