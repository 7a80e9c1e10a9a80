import type { Knex } from '@mikro-orm/knex';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { NamedStatement, SqlDatabase, SqlRunner } from './named-sql';

/**
 * Named plain SQL on the ORM's own pool (docs/architecture.md, "ORM or plain SQL"), through knex's
 * public API only: `em.getKnex()` (MikroORM), `raw(…).options(…)` and `transaction(…)` (knex). The
 * statement goes to pg as written (`$n` placeholders), its values and, when `prepared`
 * (DATABASE_PREPARED_STATEMENTS, as SqlPool), its name in the options knex hands to pg's
 * `query(config)`; a raw statement without bindings is passed on untouched (a literal `?`, a jsonb
 * operator, stays one), and knex's error message carries the statement, never its values. So a statement runs on the connections, the bounds
 * (acquire timeout, statement bound) and the hooks of the ORM's pool (shared/db/orm.ts), and a process
 * that does not run the workflow commands keeps one pool of DATABASE_POOL_MAX connections, not two.
 *
 * On the pool (`em.getKnex()`): `run` takes a connection for one statement (its own transaction),
 * `transaction` begins … commits on one connection (rolled back when `fn` throws; knex closes a
 * connection that broke). On a transaction (a knex transaction, or the EntityManager's): every
 * statement on the connection that transaction holds, seeing its writes and locks.
 */
export class OrmSql implements SqlDatabase {
  constructor(
    private readonly knex: Knex | Knex.Transaction,
    private readonly prepared: boolean,
    /** How long each statement may take, instead of the pool's DATABASE_QUERY_TIMEOUT_MS (a long import's). */
    private readonly queryTimeoutMs?: number,
  ) {}

  /** The runner of the ORM's pool. */
  static of(em: EntityManager, prepared: boolean): OrmSql {
    return new OrmSql(em.getKnex(), prepared);
  }

  async run<R>(statement: NamedStatement, values: unknown[]): Promise<R[]> {
    if ('isCompleted' in this.knex && this.knex.isCompleted()) throw new Error(`SQL statement '${statement.name}': its transaction is already over`);
    const config = {
      ...(this.prepared ? { name: statement.name } : {}),
      values,
      // pg's own per-statement bound, in place of the connection's query_timeout.
      ...(this.queryTimeoutMs ? { query_timeout: this.queryTimeoutMs } : {}),
    };
    const result = (await this.knex.raw(statement.text).options(config)) as { rows: R[] };
    return result.rows;
  }

  /** `fn` inside one transaction on one connection (a savepoint when this runner is itself on a transaction). */
  transaction<T>(fn: (tx: SqlRunner) => Promise<T>): Promise<T> {
    return this.knex.transaction((trx) => fn(new OrmSql(trx, this.prepared, this.queryTimeoutMs)));
  }
}

/**
 * The statements of a MikroORM transaction (`em.transactional`), on the connection that transaction
 * holds: they see its writes and its locks, and commit or roll back with it. Throws when `em` is in no
 * transaction; a statement after the transaction is over fails: never runs outside it.
 */
export function emTransactionSql(em: EntityManager, prepared: boolean, queryTimeoutMs?: number): SqlRunner {
  const trx = em.getTransactionContext<Knex.Transaction>();
  if (!trx) throw new Error('emTransactionSql: the EntityManager is in no transaction (use it inside em.transactional)');
  return new OrmSql(trx, prepared, queryTimeoutMs);
}

/**
 * The runner of a request's or a CLI's statements off the hot path, on the connection `em.execute`
 * uses: the EntityManager's transaction while it is in one (so the statement sees the unit of work's
 * flushed writes and commits or rolls back with it), else a connection of the ORM's pool for that one
 * statement. Unnamed unless `prepared`: each call is planned with its own values, so a listing with
 * optional conditions or a range keeps the plan its values call for, and PgBouncer in any mode passes
 * it (docs/architecture.md, "ORM or plain SQL").
 */
export function emSql(em: EntityManager, prepared = false): SqlRunner {
  return new OrmSql(em.getTransactionContext<Knex.Transaction>() ?? em.getKnex(), prepared);
}
