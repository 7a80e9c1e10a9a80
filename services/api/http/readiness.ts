import { Client as PgClient } from 'pg';
import type { Redis } from '../../../shared/redis/redis';

/** One dependency's check: resolves when it answers, rejects (or never settles) when it does not. */
export type ReadinessProbe = () => Promise<unknown>;

export interface ReadinessOptions {
  /** A check that has not answered by then counts as failed. */
  timeoutMs: number;
  /** How long an answer is reused: a flood of probes is one check per interval, not one per probe. */
  cacheMs: number;
}

/** Bounded by how long a load balancer or kubelet waits for /readyz, and short enough to follow an outage. */
export const READINESS: ReadinessOptions = { timeoutMs: 1000, cacheMs: 1000 };

/**
 * `GET /readyz` (docs/operations.md, "Health"): whether PostgreSQL and Redis answer, checked at most
 * once per `cacheMs` whatever the number of probes (concurrent probes share the check in flight), each
 * check bounded by `timeoutMs`. It never waits behind the request path: PostgreSQL is asked on a
 * connection of its own, not through the pool that reads and commands queue for.
 */
export class Readiness {
  private last: { at: number; checks: Record<string, boolean> } | undefined;
  private inFlight: Promise<Record<string, boolean>> | undefined;

  constructor(
    private readonly probes: Record<string, ReadinessProbe>,
    private readonly opts: ReadinessOptions = READINESS,
  ) {}

  /** Each dependency's answer (true: it answered within the timeout). */
  check(): Promise<Record<string, boolean>> {
    if (this.last && performance.now() - this.last.at < this.opts.cacheMs) return Promise.resolve(this.last.checks);
    this.inFlight ??= this.run().finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  private async run(): Promise<Record<string, boolean>> {
    const names = Object.keys(this.probes);
    const answers = await Promise.all(names.map((name) => this.bounded(this.probes[name]!)));
    const checks = Object.fromEntries(names.map((name, i) => [name, answers[i]!]));
    this.last = { at: performance.now(), checks };
    return checks;
  }

  private bounded(probe: ReadinessProbe): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), this.opts.timeoutMs);
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

/**
 * `select 1` on one PostgreSQL connection kept for the purpose (application_name `<role>:readiness`),
 * opened on first use and again after any failure; connecting and the query are bounded by `timeoutMs`,
 * so a server that stopped answering fails the check instead of holding it.
 */
export function postgresProbe(databaseUrl: string, applicationName: string, timeoutMs: number): { probe: ReadinessProbe; close(): Promise<void> } {
  let client: PgClient | undefined;
  let connecting: Promise<PgClient> | undefined;
  const drop = (c: PgClient) => {
    if (client === c) client = undefined;
    c.end().catch(() => undefined);
  };
  const connect = async (): Promise<PgClient> => {
    const c = new PgClient({ connectionString: databaseUrl, application_name: applicationName, connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs });
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
        await c.query('select 1');
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

/** PING on the process's shared Redis connection, which fails a command it cannot send within a second (shared/redis/redis.ts). */
export function redisProbe(redis: Redis): ReadinessProbe {
  return async () => {
    if ((await redis.ping()) !== 'PONG') throw new Error('Redis did not answer PONG');
  };
}
