import type { Knex } from '@mikro-orm/knex';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { PoolClient } from 'pg';
import type { NamedStatement, SqlDatabase, SqlRunner } from './named-sql';
import { SqlClient } from './sql-pool';

/** What knex's pg client hands out: a `pg` client (its pool's, or the one a transaction holds). */
interface KnexPgClient {
  acquireConnection(): Promise<(Pick<PoolClient, 'query'> & { __knex__disposed?: unknown }) | undefined>;
  releaseConnection(connection: unknown): Promise<unknown>;
}

/** One statement on a connection of `knex`'s client: a transaction's own (released by no one), or one taken from the pool for it. */
async function runOn<R>(knex: Knex, prepared: boolean, statement: NamedStatement, values: unknown[]): Promise<R[]> {
  const client = knex.client as KnexPgClient;
  const connection = await client.acquireConnection();
  if (!connection) throw new Error(`SQL statement '${statement.name}': the ORM's pool gave no connection`);
  try {
    return await new SqlClient(connection, prepared).run<R>(statement, values);
  } finally {
    await client.releaseConnection(connection);
  }
}

/**
 * The statements of a MikroORM transaction (`em.transactional`), on the connection that transaction
 * holds: they see its writes and its locks, and commit or roll back with it. Throws when `em` is in no
 * transaction, or once the transaction is over: never runs a statement outside it.
 */
export function emTransactionSql(em: EntityManager, prepared: boolean): SqlRunner {
  const trx = em.getTransactionContext<Knex.Transaction>();
  if (!trx) throw new Error('emTransactionSql: the EntityManager is in no transaction (use it inside em.transactional)');
  return {
    run<R>(statement: NamedStatement, values: unknown[]): Promise<R[]> {
      if (trx.isCompleted()) return Promise.reject(new Error(`SQL statement '${statement.name}': its transaction is already over`));
      return runOn<R>(trx, prepared, statement, values);
    },
  };
}

/**
 * The runner of a request's or a CLI's statements off the hot path, on the connection `em.execute`
 * used: the EntityManager's transaction while it is in one (so the statement sees the unit of work's
 * flushed writes and commits or rolls back with it), else a connection of the ORM's pool for that one
 * statement. Unnamed unless `prepared`: each call is planned with its own values, so a listing with
 * optional conditions or a range keeps the plan its values call for, and PgBouncer in any mode passes
 * it (docs/architecture.md, "ORM or plain SQL").
 */
export function emSql(em: EntityManager, prepared = false): SqlRunner {
  return em.getTransactionContext() ? emTransactionSql(em, prepared) : new OrmSql(em, prepared);
}

/**
 * Named plain SQL on the ORM's own pool (docs/architecture.md, "ORM or plain SQL"): for the processes
 * that do not run the workflow commands (the relay, the event consumers, webhook deliveries), so a
 * process keeps one pool of DATABASE_POOL_MAX connections, not two. `run`: one statement on a
 * connection taken for it (its own transaction); `transaction`: begin … commit on one connection of
 * the pool. Named prepared statements unless `prepared` is false
 * (DATABASE_PREPARED_STATEMENTS, as SqlPool).
 */
export class OrmSql implements SqlDatabase {
  constructor(
    private readonly em: EntityManager,
    private readonly prepared: boolean,
  ) {}

  run<R>(statement: NamedStatement, values: unknown[]): Promise<R[]> {
    return runOn<R>(this.em.getKnex(), this.prepared, statement, values);
  }

  /**
   * `fn` inside one transaction on one connection of the ORM's pool: begin, fn, commit; rollback when
   * it throws. No unit of work, no EntityManager: an event consumer runs one per batch. A connection
   * whose rollback failed is marked so knex closes it instead of reusing it.
   */
  async transaction<T>(fn: (tx: SqlRunner) => Promise<T>): Promise<T> {
    const client = this.em.getKnex().client as KnexPgClient;
    const connection = await client.acquireConnection();
    if (!connection) throw new Error(`the ORM's pool gave no connection for a transaction`);
    try {
      await connection.query('begin');
      try {
        const value = await fn(new SqlClient(connection, this.prepared));
        await connection.query('commit');
        return value;
      } catch (err) {
        await connection.query('rollback').catch((e: unknown) => {
          connection.__knex__disposed = e ?? 'rollback failed';
        });
        throw err;
      }
    } finally {
      await client.releaseConnection(connection);
    }
  }
}
