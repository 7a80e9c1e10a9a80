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
