import { Client as PgClient } from 'pg';
import { SqlClient } from '../../../shared/db/sql-pool';
import { databaseAnswers } from '../../../shared/db/ping.queries';
import { REQUEST_PATH_REDIS, createRedis, type Redis } from '../../../shared/redis/redis';
import type { Logger } from '../../../shared/logging/logger';

/** One dependency's check: resolves when it answers, rejects (or never settles) when it does not. */
export type ReadinessProbe = () => Promise<unknown>;

export interface ReadinessOptions {
  /** A check that has not answered by then counts as failed. */
  timeoutMs: number;
  /** How long an answer is reused as it is: a flood of probes is one check per interval, not one per probe. */
  cacheMs: number;
  /**
   * Up to this age an answer is still given at once while the next check runs behind it, so probes
   * that come often (a load balancer's, every second or faster) never wait for PostgreSQL and Redis to
   * answer on a busy host; an older one (nobody asked for a while) is checked again before the probe
   * is answered. A fault therefore shows within `maxAgeMs` + `timeoutMs`.
   */
  maxAgeMs: number;
}

/**
 * Bounded by how long a load balancer or kubelet waits for /readyz, and short enough to follow an
 * outage: a check answers within 800 ms, so /readyz answers within a second whatever PostgreSQL and
 * Redis do (refuse, or hang: a frozen server, a network black hole).
 */
export const READINESS: ReadinessOptions = { timeoutMs: 800, cacheMs: 1000, maxAgeMs: 2000 };

/**
 * A condition /readyz also waits for when the process starts, and only then: once it held, or once
 * `waitMs` passed (it may never hold: then the service is ready without it), it is no longer checked.
 * Until then a check's answer is reused for `recheckMs` at most, so /readyz follows it closely.
 */
export interface StartGate {
  /** Its name among the checks. */
  name: string;
  probe: () => Promise<boolean>;
  waitMs: number;
  recheckMs: number;
}

/**
 * `GET /readyz` (docs/operations.md, "Health"): whether PostgreSQL and Redis answer, checked at most
 * once per `cacheMs` whatever the number of probes (concurrent probes share the check in flight), each
 * check bounded by `timeoutMs`. Probes are answered from the last check while the next one runs, so
 * a probe costs no round trip (only the first one, or one after `maxAgeMs` without probes, waits). It
 * never waits behind the request path: PostgreSQL is asked on a connection of its own, not through
 * the pool that reads and commands queue for.
 */
export class Readiness {
  private last: { at: number; checks: Record<string, boolean> } | undefined;
  private inFlight: Promise<Record<string, boolean>> | undefined;
  /** The start gate while it is still checked, and when it stops being checked whatever it says. */
  private gate: { gate: StartGate; until: number } | undefined;
  private readonly listeners = new Set<(checks: Record<string, boolean>) => void>();

  constructor(
    private readonly probes: Record<string, ReadinessProbe>,
    private readonly opts: ReadinessOptions = READINESS,
    gate?: StartGate,
  ) {
    if (gate && gate.waitMs > 0) this.gate = { gate, until: performance.now() + gate.waitMs };
  }

  /** Each dependency's answer (true: it answered within the timeout). */
  check(): Promise<Record<string, boolean>> {
    const age = this.last ? performance.now() - this.last.at : Infinity;
    // While the start gate is checked, not ready is the expected answer: checked again sooner.
    if (this.gate && age >= this.gate.gate.recheckMs) return (this.inFlight ??= this.run().finally(() => (this.inFlight = undefined)));
    if (age < this.opts.cacheMs) return Promise.resolve(this.last!.checks);
    this.inFlight ??= this.run().finally(() => {
      this.inFlight = undefined;
    });
    return age < this.opts.maxAgeMs ? Promise.resolve(this.last!.checks) : this.inFlight;
  }

  /**
   * Calls `listener` with every check's answer as soon as it is known, whoever asked for it (a probe on
   * `PORT`, the health listener's heartbeat); returns the unsubscribe.
   */
  onChecks(listener: (checks: Record<string, boolean>) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private async run(): Promise<Record<string, boolean>> {
    const names = Object.keys(this.probes);
    const gate = this.gate;
    const [answers, opened] = await Promise.all([
      Promise.all(names.map((name) => this.bounded(this.probes[name]!))),
      gate ? this.bounded(async () => {
        if (!(await gate.gate.probe())) throw new Error('not yet');
      }) : Promise.resolve(true),
    ]);
    const checks = Object.fromEntries(names.map((name, i) => [name, answers[i]!]));
    if (gate && this.gate === gate) {
      if (opened || performance.now() >= gate.until) this.gate = undefined;
      else checks[gate.gate.name] = false;
    }
    this.last = { at: performance.now(), checks };
    for (const listener of this.listeners) {
      try {
        listener(checks);
      } catch {
        // A listener's failure is its own: the answer stands for everyone else.
      }
    }
    return checks;
  }

  /**
   * The probe's answer, false if it has none by `timeoutMs`. An answer already waiting when the timer
   * fires still counts: the timer runs before the loop reads its sockets, so after a turn that held the
   * event loop past the timeout (a flood of connections being accepted) the check would otherwise say
   * "PostgreSQL is down" about a reply that arrived in time. The decision waits for that read
   * (setImmediate runs after it).
   */
  private bounded(probe: ReadinessProbe): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => setImmediate(() => resolve(false)), this.opts.timeoutMs);
      let started: Promise<unknown>;
      try {
        started = probe();
      } catch {
        started = Promise.reject(new Error('probe threw'));
      }
      started.then(
        () => {
          clearTimeout(timer);
          resolve(true);
        },
        () => {
          clearTimeout(timer);
          resolve(false);
        },
      );
    });
  }
}

/** How many check timeouts the PostgreSQL client's own connect and query timeouts are (and the Redis probe's command timeout). */
const BACKSTOP_FACTOR = 4;

/**
 * `select 1` on one PostgreSQL connection kept for the purpose (application_name `<role>:readiness`),
 * opened on first use and again after any failure. The check fails after the readiness timeout; a
 * connect or query still unanswered at four times `timeoutMs` drops the connection, so a server that
 * stopped answering never holds the probe for good.
 */
export function postgresProbe(databaseUrl: string, applicationName: string, timeoutMs: number): { probe: ReadinessProbe; close(): Promise<void> } {
  let client: PgClient | undefined;
  let connecting: Promise<PgClient> | undefined;
  const drop = (c: PgClient) => {
    if (client === c) client = undefined;
    c.end().catch(() => undefined);
  };
  const connect = async (): Promise<PgClient> => {
    // The check's own bound is Readiness's timer; these only free a connection a dead server holds,
    // and are later than it so that they never fail a reply that arrived in time (see `bounded`).
    const backstopMs = timeoutMs * BACKSTOP_FACTOR;
    const c = new PgClient({ connectionString: databaseUrl, application_name: applicationName, connectionTimeoutMillis: backstopMs, query_timeout: backstopMs });
    // A connection lost while idle is dropped here; without a listener its error would end the process.
    c.on('error', () => drop(c));
    try {
      await c.connect();
    } catch (err) {
      drop(c);
      throw err;
    }
    client = c;
    return c;
  };
  return {
    async probe() {
      const c = client ?? (await (connecting ??= connect().finally(() => (connecting = undefined))));
      try {
        await databaseAnswers(new SqlClient(c, false), {});
      } catch (err) {
        drop(c);
        throw err;
      }
    },
    async close() {
      const c = client;
      client = undefined;
      await c?.end().catch(() => undefined);
    },
  };
}

/** PING on the given Redis connection. */
export function redisProbe(redis: Redis): ReadinessProbe {
  return async () => {
    if ((await redis.ping()) !== 'PONG') throw new Error('Redis did not answer PONG');
  };
}

/**
 * PING on a Redis connection kept for the purpose, as `postgresProbe` does for PostgreSQL. Its command
 * timeout is four times the check's (the check's own bound is Readiness's timer): the request path's
 * one-second timeout fired, after a turn that held the event loop past it (a flood of connections being
 * accepted), before the loop read a PONG that had arrived in time, and /readyz said Redis was down
 * while the API was only busy. Few retries and reconnects at most a second apart, as on the request
 * path: a Redis that refuses fails the check at once, and one that is back is seen at once.
 */
export function redisReadinessProbe(url: string, log: Logger, timeoutMs: number): { probe: ReadinessProbe; close(): void } {
  const redis = createRedis(url, { log, name: 'readiness', ...REQUEST_PATH_REDIS, commandTimeout: timeoutMs * BACKSTOP_FACTOR });
  return { probe: redisProbe(redis), close: () => redis.disconnect() };
}

// What /readyz answers and the health listener live in health-server.ts, which a thread loads without this module's clients.
export { createHealthServer, readyzAnswer } from './health-server';
