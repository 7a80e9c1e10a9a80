import cluster from 'node:cluster';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { Worker } from 'node:worker_threads';
import type { Logger } from '../../../shared/logging/logger';
import { HEALTH_BACKLOG, createHealthServer } from './health-server';

/** What the health listener's thread is started with. */
export interface HealthThreadData {
  port: number;
  host: string;
  /** The main thread silent longer than this: `/readyz` says not ready (`checks.eventLoop: false`). */
  readyStallMs: number;
  /** Silent longer than this: `/healthz` says the process is hung (503), for the orchestrator to restart it. */
  liveStallMs: number;
}

export type HealthThreadMessage = { type: 'checks'; checks?: Record<string, boolean> } | { type: 'close' };
export type HealthThreadReply = { type: 'listening'; port: number } | { type: 'error'; message: string };

/**
 * How the main thread keeps the thread informed: every HEARTBEAT_MS it asks its readiness (answered from
 * the last check while that is fresh; the checks themselves run at most once a second, readiness.ts)
 * and posts the latest answer, which is also its heartbeat; an answer a check gives between two
 * heartbeats (one a probe on `PORT` made run) is posted at once as well. A main thread running 2 s
 * late is not ready: a balancer sends its clients elsewhere meanwhile; silent for 30 s it is hung (a
 * synchronous loop, a deadlock in native code) and `/healthz` fails, which an orchestrator's liveness
 * probe (3 failures 10 s apart by default) turns into a restart. An overload delays the loop by tens to
 * hundreds of milliseconds (the admission refuses work before its delay reaches a command's budget).
 */
export const HEALTH_THREAD: { heartbeatMs: number; readyStallMs: number; liveStallMs: number } = { heartbeatMs: 100, readyStallMs: 2_000, liveStallMs: 30_000 };

export interface HealthListener {
  port: number;
  /** Where it answers: its own thread, or the API's main thread (a process of several sharing a port). */
  thread: boolean;
  close(): Promise<void>;
}

const listenHere = (readiness: () => Promise<Record<string, boolean>>, port: number, host: string): Promise<HealthListener> => {
  const server = createHealthServer(readiness);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host, backlog: HEALTH_BACKLOG }, () =>
      resolve({ port: (server.address() as AddressInfo).port, thread: false, close: () => new Promise<void>((r) => server.close(() => r())) }),
    );
  });
};

/**
 * The health listener (HEALTH_PORT, docs/operations.md "Health"). On a thread of its own: the API's
 * event loop serves every device, and under an overload each turn of it holds hundreds of requests, so
 * a probe answered there waits its turn behind them (p99 over 100 ms at 300 pairs/s offered on a
 * 2-core host) and a balancer that times out takes a busy but healthy API out of rotation. The thread
 * answers from the main thread's last word and says when that word stops coming.
 *
 * An API process that is one of several sharing a port (API_PROCESSES > 1 under `npm start`: cluster
 * workers) listens through the supervisor, which a thread cannot: its listener stays on the main thread.
 */
export async function startHealthListener(opts: {
  port: number;
  host: string;
  readiness: () => Promise<Record<string, boolean>>;
  /** Every answer of the checks as soon as it is known (a probe on `PORT` ran them): posted to the thread at once. */
  onReadiness?: (listener: (checks: Record<string, boolean>) => void) => () => void;
  log: Logger;
  timing?: Partial<typeof HEALTH_THREAD>;
}): Promise<HealthListener> {
  if (cluster.isWorker) return listenHere(opts.readiness, opts.port, opts.host);
  const timing = { ...HEALTH_THREAD, ...opts.timing };
  const data: HealthThreadData = { port: opts.port, host: opts.host, readyStallMs: timing.readyStallMs, liveStallMs: timing.liveStallMs };
  const entry = join(__dirname, `health.thread${__filename.endsWith('.ts') ? '.ts' : '.js'}`);
  // Under tsx or jest the thread's TypeScript entry needs tsx's loader; compiled builds load the .js.
  // It holds a socket and a few objects: small heap limits keep its share of the API's memory small.
  const resourceLimits = { maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 2 };
  const worker = entry.endsWith('.ts')
    ? new Worker(`require('tsx/cjs'); require(${JSON.stringify(entry)});`, { eval: true, workerData: data, resourceLimits })
    : new Worker(entry, { workerData: data, resourceLimits });
  let closing = false;
  let exited = false;
  const gone = new Promise<void>((r) =>
    worker.once('exit', () => {
      exited = true;
      r();
    }),
  );
  const port = await new Promise<number>((resolve, reject) => {
    const onExit = (code: number) => reject(new Error(`the health listener's thread exited (${code}) before listening`));
    worker.once('exit', onExit);
    worker.once('error', reject);
    worker.once('message', (reply: HealthThreadReply) => {
      worker.off('exit', onExit);
      worker.off('error', reject);
      if (reply.type === 'listening') resolve(reply.port);
      else reject(new Error(`the health listener cannot listen on ${opts.host}:${opts.port}: ${reply.message}`));
    });
  }).catch(async (err: unknown) => {
    await worker.terminate();
    throw err;
  });
  // A thread that dies takes the probes with it: the process then looks down to every probe, which is
  // what an orchestrator should see; it is logged, not started again behind the operator's back.
  worker.on('error', (err) => opts.log.error({ err }, 'the health listener thread failed'));
  worker.on('exit', (code) => {
    if (!closing) opts.log.error({ code }, 'the health listener thread exited: /healthz and /readyz on HEALTH_PORT no longer answer');
  });
  let latest: Record<string, boolean> | undefined;
  const post = () => worker.postMessage({ type: 'checks', checks: latest } satisfies HealthThreadMessage);
  // A new answer goes to the thread at once, not at the next heartbeat: the main thread that has just
  // answered a probe on PORT may then be held by a flood of connections for longer than a heartbeat,
  // and the thread would meanwhile answer from the answer before (at start: "not every command
  // partition is held yet" right after PORT said ready).
  const stopFollowing = opts.onReadiness?.((checks) => {
    latest = checks;
    if (!closing && !exited) post();
  });
  const ask = () =>
    opts.readiness().then(
      (checks) => (latest = checks),
      () => undefined,
    );
  void ask();
  const beat = setInterval(() => {
    void ask();
    post();
  }, timing.heartbeatMs);
  beat.unref();
  worker.unref();
  return {
    port,
    thread: true,
    async close() {
      closing = true;
      stopFollowing?.();
      clearInterval(beat);
      // A thread that died before (its exit logged) has nothing left to close.
      if (exited) return;
      worker.postMessage({ type: 'close' } satisfies HealthThreadMessage);
      const timer = setTimeout(() => void worker.terminate(), 2_000);
      await gone;
      clearTimeout(timer);
    },
  };
}
