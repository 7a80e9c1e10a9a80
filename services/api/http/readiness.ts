import { createServer, type Server } from 'node:http';
import { Client as PgClient } from 'pg';
import { SqlClient } from '../../../shared/db/sql-pool';
import { databaseAnswers } from '../../../shared/db/ping.queries';
import { AppError } from '../../../shared/errors/app-error';
import { OUTAGE_RETRY_AFTER_SECONDS } from '../../../shared/errors/outage';
import type { Redis } from '../../../shared/redis/redis';

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

/** PING on the process's shared Redis connection, which fails a command it cannot send within a second (shared/redis/redis.ts). */
export function redisProbe(redis: Redis): ReadinessProbe {
  return async () => {
    if ((await redis.ping()) !== 'PONG') throw new Error('Redis did not answer PONG');
  };
}

const DEPENDENCY_NAMES: Record<string, string> = { postgres: 'PostgreSQL', redis: 'Redis', partitions: 'the sorting workers (not every command partition is held yet)' };

/** `GET /readyz`'s answer for these checks: 200 `{ status: 'ready', checks }`, or the 503 problem to answer. */
export function readyzAnswer(checks: Record<string, boolean>): { ok: true; body: { status: 'ready'; checks: Record<string, boolean> } } | { ok: false; error: AppError } {
  if (Object.values(checks).every(Boolean)) return { ok: true, body: { status: 'ready', checks } };
  const down = Object.keys(checks).filter((name) => !checks[name]);
  return {
    ok: false,
    error: new AppError('service-unavailable', `Not ready: ${down.map((n) => DEPENDENCY_NAMES[n] ?? n).join(' and ')} ${down.length === 1 ? 'does' : 'do'} not answer.`, {
      extensions: { checks },
      headers: { 'Retry-After': String(OUTAGE_RETRY_AFTER_SECONDS) },
    }),
  };
}

/**
 * The health listener (HEALTH_PORT, docs/operations.md "Health"): `/healthz` and `/readyz` on a socket
 * of their own, without the API's middleware. Node accepts one connection per turn of the event loop
 * and listening socket, so a probe on this port waits behind no queue of client connections, however
 * many devices connect to PORT at once.
 */
export function createHealthServer(readiness: () => Promise<Record<string, boolean>>): Server {
  const send = (res: import('node:http').ServerResponse, status: number, type: string, body: unknown, headers: Record<string, string> = {}) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store', ...headers });
    res.end(text);
  };
  return createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      const err = new AppError('method-not-allowed', 'The health listener answers GET /healthz and GET /readyz only.');
      return send(res, err.status, 'application/problem+json', err.toProblem(path), { allow: 'GET, HEAD' });
    }
    if (path === '/healthz') return send(res, 200, 'application/json; charset=utf-8', { status: 'ok' });
    if (path !== '/readyz') {
      const err = new AppError('not-found', `No operation at ${req.method} ${path} on the health listener: it answers GET /healthz and GET /readyz.`);
      return send(res, err.status, 'application/problem+json', err.toProblem(path));
    }
    readiness().then(
      (checks) => {
        const answer = readyzAnswer(checks);
        if (answer.ok) send(res, 200, 'application/json; charset=utf-8', answer.body);
        else send(res, answer.error.status, 'application/problem+json', answer.error.toProblem(path), answer.error.headers);
      },
      () => send(res, 503, 'application/problem+json', new AppError('service-unavailable', 'The readiness check failed.').toProblem(path), { 'retry-after': String(OUTAGE_RETRY_AFTER_SECONDS) }),
    );
  });
}
