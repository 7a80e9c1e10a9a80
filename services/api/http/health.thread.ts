import { parentPort, workerData } from 'node:worker_threads';
import type { AddressInfo } from 'node:net';
import { HEALTH_BACKLOG, createHealthServer } from './health-server';
import type { HealthThreadData, HealthThreadMessage, HealthThreadReply } from './health-listener';

/*
 * The health listener's thread (health-listener.ts): `/healthz` and `/readyz` answered from what the
 * API's main thread last posted, on an event loop of their own. A main thread that runs late (an
 * overload: thousands of requests waiting for their turn) no longer holds a probe up; one that stops
 * running altogether (a synchronous hang) stops posting, and the probes say so.
 */
const data = workerData as HealthThreadData;
const port = parentPort!;
let checks: Record<string, boolean> | undefined;
/** When the main thread last posted: its heartbeat, on this thread's clock. */
let heardAt = performance.now();

const silentMs = () => performance.now() - heardAt;

const server = createHealthServer(
  async () => {
    // No checks posted yet: the process is starting (they run as soon as its main thread can).
    const last = checks ?? { started: false };
    return { ...last, ...(silentMs() > data.readyStallMs ? { eventLoop: false } : {}) };
  },
  () => {
    const ms = silentMs();
    return ms <= data.liveStallMs
      ? { alive: true }
      : { alive: false, detail: `The API's event loop has not run for ${Math.round(ms)} ms: the process is hung and should be restarted.` };
  },
);

port.on('message', (msg: HealthThreadMessage) => {
  if (msg.type === 'checks') {
    heardAt = performance.now();
    if (msg.checks) checks = msg.checks;
  } else if (msg.type === 'close') {
    server.close(() => port.close());
    server.closeAllConnections();
  }
});

server.once('error', (err) => port.postMessage({ type: 'error', message: err.message } satisfies HealthThreadReply));
server.listen({ port: data.port, host: data.host, backlog: HEALTH_BACKLOG }, () => {
  port.postMessage({ type: 'listening', port: (server.address() as AddressInfo).port } satisfies HealthThreadReply);
});
