import { createServer, type Server, type ServerResponse } from 'node:http';
import { AppError } from '../../../shared/errors/app-error';
import { outageRefusal } from '../../../shared/errors/outage';

/*
 * What `/healthz` and `/readyz` answer (docs/operations.md, "Health"), and the health listener that
 * answers them on a port of their own. Only `node:http` and the error types: the health listener's
 * thread (health.thread.ts) loads this module and nothing of the API's clients.
 */

/** What each failed check means, as a clause of the 503's detail. */
const NOT_READY: Record<string, string> = {
  postgres: 'PostgreSQL does not answer',
  redis: 'Redis does not answer',
  partitions: 'not every command partition is held by a sorting worker yet',
  eventLoop: "the API's event loop has not run for over two seconds",
  started: 'the API is still starting (its first checks have not run)',
};

/** A 503 of the health endpoints: the process or a dependency is not there yet. */
const unavailable = (detail: string, extensions?: Record<string, unknown>) => outageRefusal('service-unavailable', detail, extensions);

/** `GET /readyz`'s answer for these checks: 200 `{ status: 'ready', checks }`, or the 503 problem to answer. */
export function readyzAnswer(checks: Record<string, boolean>): { ok: true; body: { status: 'ready'; checks: Record<string, boolean> } } | { ok: false; error: AppError } {
  if (Object.values(checks).every(Boolean)) return { ok: true, body: { status: 'ready', checks } };
  const down = Object.keys(checks).filter((name) => !checks[name]);
  return {
    ok: false,
    error: unavailable(`Not ready: ${down.map((n) => NOT_READY[n] ?? `${n} does not answer`).join('; ')}.`, { checks }),
  };
}

/** Whether the process is alive: `/healthz`. On the API's own thread it is, if it answers at all. */
export type Liveness = () => { alive: true } | { alive: false; detail: string };

const ALIVE: Liveness = () => ({ alive: true });

/**
 * The health listener's listen backlog, as the API's own listener (start-api.ts): a burst of probes and
 * reconnections is held by the kernel rather than dropped (a dropped connection costs its client a SYN
 * retransmit, 1 s).
 */
export const HEALTH_BACKLOG = 4096;

/**
 * The health listener (HEALTH_PORT, docs/operations.md "Health"): `/healthz` and `/readyz` on a socket
 * of their own, without the API's middleware, so a probe waits behind no queue of client connections,
 * however many devices connect to PORT at once. It runs on a thread of its own where it can
 * (health-listener.ts): there `liveness` says whether the API's event loop still runs.
 */
export function createHealthServer(readiness: () => Promise<Record<string, boolean>>, liveness: Liveness = ALIVE): Server {
  const send = (res: ServerResponse, status: number, type: string, body: unknown, headers: Record<string, string> = {}) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store', ...headers });
    res.end(text);
  };
  const problem = (res: ServerResponse, path: string, err: AppError) => send(res, err.status, 'application/problem+json', err.toProblem(path), err.headers ?? {});
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return problem(res, path, new AppError('method-not-allowed', 'The health listener answers GET /healthz and GET /readyz only.', { headers: { Allow: 'GET, HEAD' } }));
    }
    if (path === '/healthz') {
      const life = liveness();
      if (life.alive) return send(res, 200, 'application/json; charset=utf-8', { status: 'ok' });
      return problem(res, path, unavailable(life.detail));
    }
    if (path !== '/readyz') {
      return problem(res, path, new AppError('not-found', `No operation at ${req.method} ${path} on the health listener: it answers GET /healthz and GET /readyz.`));
    }
    readiness().then(
      (checks) => {
        const answer = readyzAnswer(checks);
        if (answer.ok) send(res, 200, 'application/json; charset=utf-8', answer.body);
        else problem(res, path, answer.error);
      },
      () => problem(res, path, unavailable('The readiness check failed.')),
    );
  });
  // A probe sends one small request: it has seconds, not a client's minute.
  server.keepAliveTimeout = 5_000;
  server.headersTimeout = 5_000;
  server.requestTimeout = 5_000;
  return server;
}
