import { AppError } from './app-error';

/**
 * Recognizes the errors that mean "a dependency is unavailable" rather than "this request is wrong"
 * or "the code is wrong": PostgreSQL or Redis refusing, dropping or timing out connections. The API
 * answers those 503 `service-unavailable` with Retry-After (docs/api.md §1), workers answer their
 * commands the same way, never 500 `internal-error`.
 */

// Network failures of a connection (PostgreSQL or Redis).
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTCONN']);
// PostgreSQL SQLSTATEs: 57P01 admin shutdown, 57P02 crash shutdown, 57P03 cannot connect now,
// 53300 too many connections; class 08 (connection exceptions) is matched by prefix.
const PG_UNAVAILABLE = new Set(['57P01', '57P02', '57P03', '53300']);
const ERROR_NAMES = new Set(['MaxRetriesPerRequestError', 'KnexTimeoutError', 'ConnectionException', 'ClusterAllFailedError']);
const MESSAGES = [
  /Connection terminated/i, // pg: the server went away mid-query, or a connection not made within connectionTimeoutMillis
  /Query read timeout/i, // pg: no answer within query_timeout (DATABASE_QUERY_TIMEOUT_MS)
  /^timeout expired$/i, // pg: a new connection not made within connectionTimeoutMillis
  /Client has encountered a connection error/i,
  /Connection is closed/i, // ioredis
  /Stream isn't writeable/i, // ioredis, offline queue off
  /^Command timed out$/i, // ioredis: no answer within commandTimeout (REQUEST_PATH_REDIS)
  /Timeout acquiring a connection/i, // knex pool
  /timeout exceeded when trying to connect/i, // pg pool (the sorting worker's commands): no free connection in DATABASE_ACQUIRE_TIMEOUT_MS
  /the database system is (starting up|shutting down|in recovery mode)/i,
  /CLUSTERDOWN|TRYAGAIN|Too many Cluster redirections|Failed to refresh slots cache/i, // Redis Cluster mid-failover or resharding, past the client's retries
];

interface ErrorLike {
  name?: unknown;
  code?: unknown;
  sqlState?: unknown;
  message?: unknown;
  cause?: unknown;
  previous?: unknown;
}

function matches(e: ErrorLike): boolean {
  // pg puts the SQLSTATE in `code`; MikroORM's wrappers carry it as `sqlState`.
  for (const code of [e.code, e.sqlState]) {
    if (typeof code === 'string' && (NETWORK_CODES.has(code) || PG_UNAVAILABLE.has(code) || /^08[0-9A-Z]{3}$/.test(code))) return true;
  }
  if (typeof e.name === 'string' && ERROR_NAMES.has(e.name)) return true;
  return typeof e.message === 'string' && MESSAGES.some((m) => m.test(e.message as string));
}

/** True when the error (or one it wraps: `cause`, MikroORM's `previous`) says a dependency is unavailable. */
export function isDependencyOutage(err: unknown): boolean {
  let e: unknown = err;
  for (let depth = 0; depth < 5 && e && typeof e === 'object'; depth++) {
    if (matches(e as ErrorLike)) return true;
    e = (e as ErrorLike).cause ?? (e as ErrorLike).previous;
  }
  return false;
}

/**
 * True when a Redis command was sent and not answered within its command timeout (ioredis: `Command
 * timed out`, REQUEST_PATH_REDIS): Redis hangs, or this process did not run for that long. Unlike a
 * refused or lost connection, the command may still be carried out once Redis answers again.
 */
export function isCommandTimeout(err: unknown): boolean {
  return err instanceof Error && /timed out/i.test(err.message);
}

/** Seconds a client should wait before retrying during an outage (a restart usually takes a few). */
export const OUTAGE_RETRY_AFTER_SECONDS = 5;

/**
 * The refusal of an outage: 503 `service-unavailable` (nothing was done) or 504 `command-timeout` (the
 * outcome is unknown), with `Retry-After` the outage interval.
 */
export function outageRefusal(code: 'service-unavailable' | 'command-timeout', detail: string, extensions?: Record<string, unknown>): AppError {
  return new AppError(code, detail, { extensions, headers: { 'Retry-After': String(OUTAGE_RETRY_AFTER_SECONDS) } });
}
