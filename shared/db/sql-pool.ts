import { Pool, type PoolClient } from 'pg';
import { foldedWarning, type Logger } from '../logging/logger';
import type { NamedStatement, SqlDatabase, SqlRunner } from './named-sql';

/** The wall actors' pool carries WALL_ACTOR_APPLICATION_NAME: the wall-version triggers leave its writes out. */
export { WALL_ACTOR_APPLICATION_NAME } from './entities/wall-versions';

export interface SqlPoolOptions {
  /** Connections at most (a share of DATABASE_POOL_MAX: shared/runtime/runtime.ts). */
  max: number;
  /** DATABASE_ACQUIRE_TIMEOUT_MS: how long a transaction waits for a free connection before it fails (an outage, 503). */
  acquireTimeoutMs: number;
  /** PostgreSQL application_name: WALL_ACTOR_APPLICATION_NAME for the wall actors' pool. */
  applicationName: string;
  /**
   * DATABASE_PREPARED_STATEMENTS. On (the default): named prepared statements, parsed and planned once
   * per server connection; right for a direct connection, PgBouncer in session mode, or in transaction
   * mode from 1.21 on (max_prepared_statements > 0). Off: the same SQL as unnamed statements, planned on
   * every call, which any pooler in any mode passes through; needed for PgBouncer before 1.21 in
   * transaction mode, where a statement prepared on one server connection is missing on the next.
   * docs/scaling.md.
   */
  prepared: boolean;
  /** DATABASE_QUERY_TIMEOUT_MS: a statement (or a new connection) PostgreSQL does not answer in time fails as an outage. */
  queryTimeoutMs?: number;
  /**
   * Connections kept open once made, however long they idle (pg-pool's `min`; the others close after
   * 10 s idle), and opened ahead by `warm()`. A new server connection costs a connect, then its first
   * statements fill the backend's catalog caches and parse and plan each prepared statement again.
   */
  keepOpen?: number;
  /** How long a connection beyond `keepOpen` may idle before it is closed (10 s unless given). */
  idleMs?: number;
  /**
   * Whether a transaction that stalls between two statements is ended by PostgreSQL after
   * IDLE_IN_TRANSACTION (the default: the commands' outbox writes must not hold the relay's horizon).
   * False for the worker kinds' pool, whose batches may render or send between statements.
   */
  boundStalls?: boolean;
  /**
   * How long a connection keeps its prepared statements' plans before it plans them again (DISCARD
   * PLANS when it is next taken, at most this often; unset: never). A generic plan is made once, with
   * the table sizes of that moment, and kept until something invalidates it (ANALYZE, VACUUM, DDL): a
   * plan made while a table was nearly empty (a new database, the first scans after an upload) scans
   * the whole table on every call, and with autovacuum off or behind it goes on doing so while the
   * table grows. A new connection's first plans are made afresh sooner, after 1 s, then 2, 4, … up to
   * this (FIRST_REPLAN_MS): a new database's tables grow fastest in its first minutes (a backlog uploaded
   * and scanned at once), and a bench or a floor that starts there should not run half a minute on the
   * plans of empty tables.
   */
  replanAfterMs?: number;
}

/** A new connection's first DISCARD PLANS, after which the interval doubles up to replanAfterMs. */
const FIRST_REPLAN_MS = 1_000;

/** The longest a transaction of the pool may wait on its process between two statements. */
const IDLE_IN_TRANSACTION = '15s';

/** Runs statements on one pg client: the transaction's, or a bare one (bench/lib/pg-floor.ts). */
export class SqlClient implements SqlRunner {
  constructor(
    private readonly client: Pick<PoolClient, 'query'>,
    private readonly prepared: boolean,
  ) {}

  async run<R>(statement: NamedStatement, values: unknown[]): Promise<R[]> {
    const { name, text } = statement;
    const result = await this.client.query(this.prepared ? { name, text, values } : { text, values });
    return result.rows as R[];
  }
}

/**
 * A plain `pg` pool for the statements of a hot path (the sorting worker's commands; in a worker process
 * that runs no commands, the relay, the consumers' batches and the other worker kinds): no ORM, no query
 * builder, one round trip per statement. docs/architecture.md, "ORM or plain SQL".
 */
export class SqlPool implements SqlDatabase {
  private readonly pool: Pool;
  private readonly autocommit: SqlClient;

  constructor(
    databaseUrl: string,
    private readonly options: SqlPoolOptions,
    log: Pick<Logger, 'warn'>,
  ) {
    this.pool = new Pool({
      connectionString: databaseUrl,
      max: options.max,
      connectionTimeoutMillis: options.queryTimeoutMs ? Math.min(options.acquireTimeoutMs, options.queryTimeoutMs) : options.acquireTimeoutMs,
      application_name: options.applicationName,
      min: options.keepOpen ?? 0,
      ...(options.idleMs ? { idleTimeoutMillis: options.idleMs } : {}),
      ...(options.queryTimeoutMs ? { query_timeout: options.queryTimeoutMs } : {}),
    });
    // An idle connection the server closed (restart, pooler): the pool drops it; without a listener it would crash the process.
    // The message only: pg attaches the whole client to the error. One line per interval: an outage fails them all.
    const idleFailed = foldedWarning(log, `an idle PostgreSQL connection of the ${options.applicationName} pool failed; it is replaced on next use`);
    this.pool.on('error', (err) => idleFailed(err));
    const replanAfterMs = options.replanAfterMs;
    if (replanAfterMs) {
      // When each connection last had its plans made afresh (a new one just has), and when it is due next.
      const planned = new WeakMap<object, { at: number; every: number }>();
      this.pool.on('connect', (client) => planned.set(client, { at: Date.now(), every: Math.min(FIRST_REPLAN_MS, replanAfterMs) }));
      // Emitted as a caller takes the connection, before its first statement is queued: the DISCARD runs first.
      this.pool.on('acquire', (client) => {
        const now = Date.now();
        const plans = planned.get(client);
        if (!plans || now - plans.at < plans.every) return;
        plans.at = now;
        plans.every = Math.min(plans.every * 2, replanAfterMs);
        // A failure here fails the caller's statement too (the connection broke): nothing to report twice.
        client.query('discard plans').catch(() => undefined);
      });
    }
    this.autocommit = new SqlClient(this.pool, options.prepared);
  }

  /** One statement on its own (its own transaction), on any free connection. */
  run<R>(statement: NamedStatement, values: unknown[]): Promise<R[]> {
    return this.autocommit.run<R>(statement, values);
  }

  /**
   * `fn` inside one transaction on one connection: begin, fn, commit; rollback when it throws. A
   * connection whose rollback failed is closed, not reused (pg drops a connection that broke by itself).
   */
  async transaction<T>(fn: (tx: SqlClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    // A connection lost mid-transaction fails the running statement and is emitted on the client: a
    // checked-out client has no pool listener, and an unheard 'error' would end the process.
    const onError = (err: Error) => {
      broken = err;
    };
    client.on('error', onError);
    try {
      // A transaction of this pool that stalls (a process stopped or cut off between its statements) ends
      // after IDLE_IN_TRANSACTION: its outbox write would otherwise hold the relay's horizon, and so every
      // wall's events, for as long as its connection lives (docs/architecture.md, "Relay order").
      await client.query(this.options.boundStalls === false ? 'begin' : `begin; set local idle_in_transaction_session_timeout = '${IDLE_IN_TRANSACTION}'`);
      try {
        const value = await fn(new SqlClient(client, this.options.prepared));
        await client.query('commit');
        return value;
      } catch (err) {
        await client.query('rollback').catch((e: Error) => {
          broken = e;
        });
        throw err;
      }
    } finally {
      client.off('error', onError);
      client.release(broken);
    }
  }

  /**
   * Opens the connections kept open, all at once, and runs each statement on each: the work a cold
   * connection would add to the first commands is done before they come.
   */
  async warm(statements: { statement: NamedStatement; values: unknown[] }[]): Promise<void> {
    const clients = await Promise.all(Array.from({ length: this.options.keepOpen ?? 0 }, () => this.pool.connect()));
    try {
      await Promise.all(clients.map(async (c) => {
        for (const { statement, values } of statements) await new SqlClient(c, this.options.prepared).run(statement, values);
      }));
    } finally {
      for (const c of clients) c.release();
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
