import { MikroORM, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { Client as PgClient } from 'pg';
import type { Logger } from '../logging/logger';
import { ALL_ENTITIES } from './entities';
import { migrationsList } from './migrations';
import { releaseIdleStorages } from './async-storage';

export type Orm = MikroORM;

export interface PoolOptions {
  /** How long a query waits for a free pool connection before it fails (KnexTimeoutError → 503). */
  acquireTimeoutMs?: number;
  /** PostgreSQL application_name of the connections, e.g. `sorting:worker:sorting`: tells roles apart in pg_stat_activity. */
  applicationName?: string;
  /**
   * Where knex's own warnings go (a pooled connection the server closed: "Connection Error: …"). Without
   * it knex writes them to the console, outside the process's JSON log.
   */
  log?: Pick<Logger, 'warn' | 'debug'>;
  /**
   * DATABASE_QUERY_TIMEOUT_MS where a client waits (the API): a statement or a new connection that
   * PostgreSQL does not answer in time fails (an outage, 503) instead of waiting for a server that
   * hangs. Unset: no bound (migrations, the pipeline's batches).
   */
  queryTimeoutMs?: number;
}

export function ormOptions(databaseUrl: string, poolMax = 10, poolOptions: PoolOptions = {}): Options {
  const acquireTimeoutMs = poolOptions.acquireTimeoutMs ?? 60_000;
  return {
    clientUrl: databaseUrl,
    entities: ALL_ENTITIES,
    extensions: [Migrator],
    // Production never syncs the schema: it only runs the committed migrations.
    discovery: { warnWhenNoEntities: true },
    pool: {
      min: 0,
      max: poolMax,
      acquireTimeoutMillis: acquireTimeoutMs,
      ...(poolOptions.queryTimeoutMs ? { afterCreate: dropConnectionOnReadTimeout } : {}),
    },
    driverOptions: {
      acquireConnectionTimeout: acquireTimeoutMs,
      ...(poolOptions.log ? { log: knexLog(poolOptions.log) } : {}),
      connection: {
        ...(poolOptions.applicationName ? { application_name: poolOptions.applicationName } : {}),
        ...(poolOptions.queryTimeoutMs ? { query_timeout: poolOptions.queryTimeoutMs, connectionTimeoutMillis: poolOptions.queryTimeoutMs } : {}),
      },
    },
    migrations: { migrationsList, transactional: true, allOrNothing: true, snapshot: false, silent: true },
    // A request or job forks its own entity manager; touching the global one is a bug.
    allowGlobalContext: false,
    // Databases are created by ensureDatabase() (npm start, migrate, cli), never implicitly on connect.
    ensureDatabase: false,
    debug: false,
  };
}

function knexLog(log: Pick<Logger, 'warn' | 'debug'>) {
  const text = (m: unknown) => (m instanceof Error ? m.message : String(m));
  return {
    warn: (m: unknown) => log.warn({ source: 'knex' }, text(m)),
    error: (m: unknown) => log.warn({ source: 'knex' }, text(m)),
    deprecate: (method: string, alternative: string) => log.warn({ source: 'knex' }, `${method} is deprecated: use ${alternative}`),
    debug: (m: unknown) => log.debug({ source: 'knex' }, text(m)),
  };
}

export async function initOrm(databaseUrl: string, poolMax = 10, poolOptions: PoolOptions = {}): Promise<Orm> {
  // MikroORM's async storages turn the promise hooks off again after each flush or transaction (async-storage.ts).
  releaseIdleStorages();
  return MikroORM.init(ormOptions(databaseUrl, poolMax, poolOptions));
}

/** Creates the database named in the URL when it does not exist yet (docs/api.md §10). */
export async function ensureDatabase(databaseUrl: string, log?: Logger): Promise<void> {
  const url = new URL(databaseUrl);
  const dbName = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!dbName) return;
  url.pathname = '/postgres';
  const admin = new PgClient({ connectionString: url.toString() });
  await admin.connect();
  try {
    const { rowCount } = await admin.query('select 1 from pg_database where datname = $1', [dbName]);
    if (!rowCount) {
      await admin.query(`create database "${dbName.replace(/"/g, '""')}"`).catch((err: { code?: string }) => {
        // Created meanwhile by another process: 42P04, or 23505 when both inserted into pg_database at once.
        if (err.code !== '42P04' && err.code !== '23505') throw err;
      });
      log?.info({ database: dbName }, 'created database');
    }
  } finally {
    await admin.end();
  }
}

/** Applies pending migrations; returns the names applied. */
export async function migrate(orm: Orm, log?: Logger): Promise<string[]> {
  const migrator = orm.getMigrator();
  const pending = await migrator.getPendingMigrations();
  if (pending.length === 0) {
    log?.info('database schema is up to date');
    return [];
  }
  log?.info({ pending: pending.map((m) => m.name) }, `applying ${pending.length} migration(s)`);
  const applied = await migrator.up();
  log?.info({ applied: applied.map((m) => m.name) }, 'migrations applied');
  return applied.map((m) => m.name);
}

/** The part of a pg client this module touches. */
interface PgConnection {
  query: (...args: unknown[]) => unknown;
  connection?: { stream?: { destroy(): void } };
}

/**
 * A statement PostgreSQL did not answer within `query_timeout` still occupies its connection: pg only
 * stops waiting for it. Whatever the ORM sends next on that connection (the transaction's ROLLBACK)
 * would queue behind it and wait the bound again, so a request would answer after twice the bound.
 * The connection is closed at the timeout instead: what was queued on it fails at once ("Connection
 * terminated", an outage), and the pool replaces it.
 */
function dropConnectionOnReadTimeout(conn: PgConnection, done: (err: Error | null, conn: PgConnection) => void): void {
  const query = conn.query.bind(conn);
  const drop = (err: unknown) => {
    if (err instanceof Error && err.message === 'Query read timeout') conn.connection?.stream?.destroy();
  };
  conn.query = (...args: unknown[]) => {
    const last = args.length - 1;
    const callback = args[last];
    if (typeof callback === 'function') {
      args[last] = (err: unknown, result: unknown) => {
        drop(err);
        (callback as (e: unknown, r: unknown) => void)(err, result);
      };
      return query(...args);
    }
    const answer = query(...args);
    if (answer && typeof (answer as Promise<unknown>).catch === 'function') (answer as Promise<unknown>).catch(drop);
    return answer;
  };
  done(null, conn);
}

