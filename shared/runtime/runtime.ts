import { loadConfig, type AppConfig } from '../config/config';
import { createLogger, type Logger } from '../logging/logger';
import { ensureDatabase, initOrm, migrate, type Orm } from '../db/orm';
import { REQUEST_PATH_REDIS, createRedis, type Redis } from '../redis/redis';
import { checkConnectionBudget } from '../db/connection-budget';
import { resolveJwtSecret } from '../auth/jwt-secret';
import { SqlPool, WALL_ACTOR_APPLICATION_NAME } from '../db/sql-pool';
import { OrmSql } from '../db/orm-sql';
import type { SqlDatabase } from '../db/named-sql';
import type { QueueSettings } from '../queue/queue-module';

/** The outside things one process holds, built once and passed in, closed in order. */
export interface Runtime {
  config: AppConfig;
  log: Logger;
  orm: Orm;
  /** The plain-SQL pool of the workflow commands (docs/architecture.md, "ORM or plain SQL"); connects on first use. */
  sqlPool(): SqlPool;
  /**
   * Named plain SQL on the ORM's pool (the API's statements, start-up checks): the same statements and
   * DATABASE_PREPARED_STATEMENTS as the command pool.
   */
  ormSql: OrmSql;
  /**
   * Named plain SQL of the worker kinds other than the commands (the relay, the event consumers, the
   * senders, the light gateway, the sweeper). In a worker process that runs no commands, a plain `pg`
   * pool of its own (poolShares: DATABASE_POOL_MAX − 1 connections, the ORM keeps one): no knex
   * transaction object per batch. Elsewhere (a process that also runs the commands, the API, the CLI,
   * a test's process) `ormSql`.
   */
  workerSql: SqlDatabase;
  redis: Redis;
  queueSettings: QueueSettings;
  /** Registers a closer; close() runs them in reverse order of registration. */
  onClose(name: string, fn: () => Promise<void> | void): void;
  close(): Promise<void>;
}

export async function createRuntime(
  role: string,
  // `log`: a caller whose stdout is its output (the cli) passes a logger writing elsewhere.
  // `commandPool`: the process runs workflow commands on plain SQL (the sorting worker): see poolShares.
  opts: { config?: AppConfig; migrate?: boolean; log?: Logger; commandPool?: boolean } = {},
): Promise<Runtime> {
  const config = opts.config ?? loadConfig();
  const log = opts.log ?? createLogger(config.LOG_LEVEL, role);
  if (opts.migrate) await ensureDatabase(config.DATABASE_URL, log);
  const applicationName = `sorting:${role}`.slice(0, 63);
  // Where a client waits for the answer (the API; a test's or bench's process that serves requests),
  // PostgreSQL's answers are bounded; a worker's batches and the CLI's migrations wait.
  const clientWaits = !role.startsWith('worker:') && role !== 'cli';
  const shares = poolShares(config.DATABASE_POOL_MAX, opts.commandPool ?? false, role.startsWith('worker:'), config.COMMAND_CONNECTIONS);
  const orm = await initOrm(config.DATABASE_URL, shares.orm, {
    // Where a client waits, a connection is had within the statement bound too: the pool retries a
    // connection that timed out, so an unbounded acquire could wait the bound two or three times over.
    acquireTimeoutMs: clientWaits ? Math.min(config.DATABASE_ACQUIRE_TIMEOUT_MS, config.DATABASE_QUERY_TIMEOUT_MS) : config.DATABASE_ACQUIRE_TIMEOUT_MS,
    applicationName,
    log,
    ...(clientWaits ? { queryTimeoutMs: config.DATABASE_QUERY_TIMEOUT_MS } : {}),
  });
  let sqlPool: SqlPool | undefined;
  if (opts.migrate) await migrate(orm, log);
  const ormSql = OrmSql.of(orm.em, config.DATABASE_PREPARED_STATEMENTS);
  // The worker kinds' own pool: the ORM pool's bounds (a worker's batches wait: no statement bound), name
  // and idle time (a connection closed and opened again is a new backend, its statements prepared anew).
  const workerPool = shares.worker
    ? new SqlPool(
        config.DATABASE_URL,
        { max: shares.worker, acquireTimeoutMs: config.DATABASE_ACQUIRE_TIMEOUT_MS, applicationName, prepared: config.DATABASE_PREPARED_STATEMENTS, boundStalls: false, idleMs: ORM_POOL_IDLE_MS },
        log,
      )
    : null;
  await checkConnectionBudget(config, ormSql, log);
  // Without JWT_SECRET: the deployment's own random key, from the database (the same in every process).
  config.JWT_SECRET = await resolveJwtSecret(config, ormSql);
  // Only the API uses it (sign-in throttle, readiness), while a client waits: it fails fast.
  const redis = createRedis(config.REDIS_URL, { log, name: 'shared', ...REQUEST_PATH_REDIS });
  const closers: { name: string; fn: () => Promise<void> | void }[] = [];
  const runtime: Runtime = {
    config,
    log,
    orm,
    ormSql,
    workerSql: workerPool ?? ormSql,
    sqlPool() {
      sqlPool ??= new SqlPool(
        config.DATABASE_URL,
        // The workflow commands: an API request waits for each, so PostgreSQL's answers are bounded.
        {
          max: shares.sql,
          acquireTimeoutMs: config.DATABASE_ACQUIRE_TIMEOUT_MS,
          // The wall actors' connections: their writes move their walls' versions themselves (the fence).
          applicationName: WALL_ACTOR_APPLICATION_NAME,
          prepared: config.DATABASE_PREPARED_STATEMENTS,
          queryTimeoutMs: config.DATABASE_QUERY_TIMEOUT_MS,
          // Warm connections for the commands of a quiet spell (a wall's first scans after a pause).
          keepOpen: Math.min(COMMAND_CONNECTIONS_KEPT_OPEN, shares.sql),
          idleMs: COMMAND_POOL_IDLE_MS,
          // Kept open for hours: the plans of their key lookups follow the tables as they grow.
          replanAfterMs: COMMAND_REPLAN_AFTER_MS,
        },
        log,
      );
      return sqlPool;
    },
    redis,
    queueSettings: {
      redisUrl: config.REDIS_URL,
      prefix: config.QUEUE_PREFIX,
      partitions: config.QUEUE_PARTITIONS,
      commandTimeoutMs: config.COMMAND_TIMEOUT_MS,
    },
    onClose(name, fn) {
      closers.push({ name, fn });
    },
    async close() {
      // Last registered first: stop taking requests, then workers, then queues.
      for (const { name, fn } of closers.reverse()) {
        log.info(`shutting down: ${name}`);
        try {
          await fn();
        } catch (err) {
          log.error({ err }, `error while closing ${name}`);
        }
      }
      log.info('shutting down: database and redis');
      await sqlPool?.close();
      await workerPool?.close();
      await orm.close();
      redis.disconnect();
      log.info('shut down complete');
    },
  };
  return runtime;
}

/**
 * Connections of the commands' pool kept open and warm: commands of one wall run one at a time, so a
 * quiet floor uses one or two; under load every connection is busy and none idles out anyway.
 */
const COMMAND_CONNECTIONS_KEPT_OPEN = 2;

/**
 * How long a command connection beyond those kept open may idle before it is closed. A floor's load
 * dips and comes back (a lone sorter for half a minute, then every wall): closed after seconds, the
 * connections are opened again by the next busy moment's commands, each new backend slow on its first
 * statements. They count in the process's DATABASE_POOL_MAX whether open or not.
 */
const COMMAND_POOL_IDLE_MS = 5 * 60_000;

/**
 * How often a command connection plans its statements afresh (SqlPoolOptions.replanAfterMs): a plan made
 * on a nearly empty sort_box_item read the whole table at every confirm as it grew to thousands of rows,
 * with autovacuum off. Five plans of each statement twice a minute (more often in a connection's first
 * half minute), next to nothing.
 */
const COMMAND_REPLAN_AFTER_MS = 30_000;

/** How long the ORM pool (knex's tarn pool) keeps an idle connection: the worker kinds' pool does alike. */
const ORM_POOL_IDLE_MS = 30_000;

/**
 * How a process shares its DATABASE_POOL_MAX connections (docs/scaling.md) between the ORM's pool, the
 * plain-SQL pool of the workflow commands (`sql`) and that of the other worker kinds (`worker`). A
 * process that runs the commands (the sorting worker) gives them COMMAND_CONNECTIONS, at most all
 * connections but one, which the ORM keeps (start-up checks, failed-job records; and the statements of
 * any other kind it runs). Few command connections are what makes group commit happen under load: while a
 * wall's write waits for a connection and runs, the commands that reach the wall gather for its next. A
 * worker process that runs no commands (the pipeline) gives its worker kinds' pool all connections but
 * the ORM's one (start-up checks). Either way the pools together stay within DATABASE_POOL_MAX (2 at the
 * least). Any other process (the API, the CLI) uses the ORM alone. A commands' pool not counted here
 * (`sql` of a process that runs no commands) opens no connection unless a test runs the sorting worker
 * in the same process.
 */
export function poolShares(poolMax: number, commandPool: boolean, worker = false, commandConnections = Infinity): { orm: number; sql: number; worker: number } {
  // The commands' connections within what the process may give them (at least one).
  const commands = (within: number) => Math.max(1, Math.min(commandConnections, within));
  if (commandPool) return { orm: 1, sql: commands(poolMax - 1), worker: 0 };
  if (worker) return { orm: 1, sql: commands(poolMax), worker: Math.max(1, poolMax - 1) };
  return { orm: poolMax, sql: commands(poolMax), worker: 0 };
}

const FATAL_CLOSE_MS = 3_000;

/**
 * The process policy for a failure nothing handled (an uncaught exception, an unhandled rejection):
 * the state of the process is unknown, so it logs the error as one JSON record (level fatal, with the
 * stack), closes what it can within 3 s, and exits 1 for its supervisor (npm start, the orchestrator)
 * to restart it. Never a silent death, never a process that limps on.
 */
export function exitOnFatalErrors(runtime: Pick<Runtime, 'log' | 'close'>): void {
  let dying = false;
  const fatal = (kind: 'uncaughtException' | 'unhandledRejection') => (err: unknown) => {
    runtime.log.fatal({ err, kind }, `${kind}: ${err instanceof Error ? err.message : String(err)}; the process exits`);
    if (dying) return;
    dying = true;
    process.exitCode = 1;
    setTimeout(() => process.exit(1), FATAL_CLOSE_MS).unref();
    runtime.close().then(
      () => process.exit(1),
      () => process.exit(1),
    );
  };
  process.on('uncaughtException', fatal('uncaughtException'));
  process.on('unhandledRejection', fatal('unhandledRejection'));
}

/**
 * Runs close() on SIGINT/SIGTERM once, then exits; and installs the fatal-error policy
 * (exitOnFatalErrors). Every process role's entry point calls it.
 */
export function closeOnSignals(runtime: Runtime): void {
  exitOnFatalErrors(runtime);
  let closing = false;
  const handler = (signal: string) => {
    if (closing) return;
    closing = true;
    runtime.log.info({ signal }, 'received signal, shutting down');
    runtime.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  // Under `npm start` the supervisor stops its children one role after another with SIGTERM; the
  // terminal's Ctrl-C (SIGINT to the whole process group) must not stop them all at once.
  if (process.env.SORTING_SUPERVISED === '1') process.on('SIGINT', () => undefined);
  else process.on('SIGINT', () => handler('SIGINT'));
  process.on('SIGTERM', () => handler('SIGTERM'));
  // A child of `npm start` whose supervisor is gone (killed outright) closes too, rather than running on
  // as an orphan that holds its port, its queues and its database connections.
  if (process.env.SORTING_SUPERVISED === '1' && process.channel) process.once('disconnect', () => handler('supervisor gone'));
}
