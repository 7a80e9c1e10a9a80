import type { EntityManager } from '@mikro-orm/postgresql';

interface PgConnection {
  query(q: { name?: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

/**
 * A statement of the scan and confirm path, run as a named prepared statement: PostgreSQL plans it
 * once per connection instead of on every call, which halves its CPU per transaction (docs/benchmarks.md).
 * Written with `?` placeholders like the rest of the code; numbered once here.
 */
export class PreparedSql {
  readonly text: string;
  constructor(
    readonly name: string,
    readonly sql: string,
  ) {
    let n = 0;
    this.text = sql.replace(/\?/g, () => `$${++n}`);
  }
}

/**
 * DATABASE_PREPARED_STATEMENTS. On (the default): named prepared statements, planned once per server
 * connection; right for a direct connection and for PgBouncer in session mode, or in transaction mode
 * from 1.21 on (max_prepared_statements > 0). Off: the same SQL as plain parameterized queries (the
 * unnamed statement, planned every time), which any pooler in any mode passes through; needed for
 * PgBouncer before 1.21 in transaction mode, where a named statement prepared on one server connection
 * is missing on the next ("prepared statement ... does not exist"). docs/scaling.md.
 */
let namedStatements = true;

export function usePreparedStatements(on: boolean): void {
  namedStatements = on;
}

/**
 * Runs a prepared statement on the connection of the entity manager's open transaction (knex hands a
 * transaction's own connection to anyone who asks its client). Without one, a plain execute.
 */
export async function runPrepared<T>(tx: EntityManager, stmt: PreparedSql, values: unknown[]): Promise<T[]> {
  const trx = tx.getTransactionContext<{ client?: { acquireConnection?: () => Promise<unknown> } }>();
  const conn = (await trx?.client?.acquireConnection?.()) as PgConnection | undefined;
  if (!conn || typeof conn.query !== 'function') return tx.execute<T[]>(stmt.sql, values);
  const result = await conn.query(namedStatements ? { name: stmt.name, text: stmt.text, values } : { text: stmt.text, values });
  return result.rows as T[];
}
