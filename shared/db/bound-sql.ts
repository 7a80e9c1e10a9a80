import type { Knex } from '@mikro-orm/knex';
import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * One statement with real bind parameters, in the EntityManager's transaction when it has one.
 * em.execute() inlines every parameter into the SQL text (escaping it character by character, then
 * PostgreSQL lexes it again): fine for a few ids, costly for a jsonb batch of hundreds of events.
 * Parameters are never expanded: pass a PostgreSQL array as its text form (`{1,2,3}`).
 */
export async function boundSql<T = Record<string, unknown>>(em: EntityManager, query: string, params: readonly unknown[] = []): Promise<{ rows: T[]; rowCount: number }> {
  const q = em.getKnex().raw(query, params as Knex.RawBinding[]);
  const ctx = em.getTransactionContext<Knex.Transaction>();
  if (ctx) q.transacting(ctx);
  const res = (await q) as { rows?: T[]; rowCount?: number | null };
  return { rows: res.rows ?? [], rowCount: res.rowCount ?? 0 };
}

interface PgConnection {
  query(q: { name?: string; text: string; values: readonly unknown[] }): Promise<{ rows: unknown[]; rowCount: number | null }>;
}

/**
 * A statement outside any transaction, as a named prepared statement when `prepared` (then PostgreSQL
 * plans it once per server connection, not on every call; DATABASE_PREPARED_STATEMENTS says whether
 * the connection path allows it, docs/scaling.md), else as bound parameters like boundSql. Written
 * with `?` placeholders; the name must be unique per SQL text.
 */
export function preparedStatement(name: string, sql: string) {
  let n = 0;
  const text = sql.replace(/\?/g, () => `$${++n}`);
  return async <T = Record<string, unknown>>(em: EntityManager, params: readonly unknown[], prepared: boolean): Promise<{ rows: T[]; rowCount: number }> => {
    if (!prepared) return boundSql<T>(em, sql, params);
    const client = em.getKnex().client as { acquireConnection(): Promise<PgConnection>; releaseConnection(c: PgConnection): Promise<unknown> };
    const conn = await client.acquireConnection();
    try {
      const res = await conn.query({ name, text, values: params });
      return { rows: res.rows as T[], rowCount: res.rowCount ?? 0 };
    } finally {
      await client.releaseConnection(conn);
    }
  };
}
