import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { EVERY_PROCESS_NODE_FLAGS } from '../../services/supervisor/roles';

/*
 * The hubs' reads and the load balancer's probes, sent from a process of their own. On a floor a hub is
 * a browser on another machine and a balancer another host: their requests do not wait for the event
 * loop of whatever makes the floor's load. Sent from the bench's own process they did, behind every
 * sorter, WebSocket and answer the bench handles (its event loop runs tens of milliseconds late in the
 * open loops), and that delay was reported as the service's.
 */

export interface ProbeSample {
  /** Which request: a hub's read, /readyz and /healthz on PORT, /readyz on HEALTH_PORT, the bare read beside the hubs' (`floorRead`). */
  kind: 'read' | 'readyz' | 'healthz' | 'health' | 'floor';
  /** When it was sent, on the parent's performance.now() clock. */
  at: number;
  ms: number;
  status: number;
  /** Reads only: the API's main thread meanwhile, on a core and waiting for one (ms); null without a single API process. */
  apiOnCpuMs?: number | null;
  apiWaitMs?: number | null;
}

export interface ProbeProcessOptions {
  host: string;
  port: number;
  healthPort: number;
  /** The hubs' bearer token and walls: each hub reads GET /api/v1/walls/{id} every `readEveryMs` on a kept-alive connection. */
  auth: string;
  wallIds: number[];
  readEveryMs: number;
  /** The probes: each on a fresh connection every `probeEveryMs`, answered or not. */
  probeEveryMs: number;
  apiPid?: number;
  /**
   * A bare PostgreSQL read (a prepared statement on a connection of its own) at the hubs' cadence,
   * halfway between two of their reads: what this machine gives a request that wakes processes idle
   * since the last one, the floor of the hubs' reads (`pg`: the path of the `pg` module to load).
   */
  floorRead?: { databaseUrl: string; pg: string; text: string; values: unknown[] };
}

// Plain JavaScript for `node -e`: no loader to start, nothing of the bench's modules.
const CHILD = String.raw`
const http = require('node:http');
const fs = require('node:fs');
const o = JSON.parse(process.env.BENCH_PROBES);
const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 32 });
const epoch = () => performance.timeOrigin + performance.now();
const emit = (s) => process.stdout.write(JSON.stringify(s) + '\n');
const schedstat = () => {
  if (o.apiPid === undefined) return null;
  try { return fs.readFileSync('/proc/' + o.apiPid + '/schedstat', 'utf8').split(' ').map(Number); } catch { return null; }
};
const get = (port, path, agent, headers) => new Promise((resolve) => {
  const req = http.request({ host: o.host, port, path, agent, headers, timeout: 15000 }, (res) => {
    res.resume();
    res.on('end', () => resolve(res.statusCode));
    res.on('error', () => resolve(0));
  });
  req.on('timeout', () => req.destroy());
  req.on('error', () => resolve(0));
  req.end();
});
let running = true;
process.on('SIGTERM', () => { running = false; clearInterval(timer); });
const loops = o.wallIds.map(async (id, i) => {
  await new Promise((r) => setTimeout(r, (i * o.readEveryMs) / o.wallIds.length));
  while (running) {
    const s0 = schedstat();
    const at = epoch();
    const t0 = performance.now();
    const status = await get(o.port, '/api/v1/walls/' + id, keepAlive, { authorization: o.auth });
    const ms = performance.now() - t0;
    const s1 = s0 && schedstat();
    emit({ kind: 'read', at, ms, status, apiOnCpuMs: s0 && s1 ? (s1[0] - s0[0]) / 1e6 : null, apiWaitMs: s0 && s1 ? (s1[1] - s0[1]) / 1e6 : null });
    if (!running) break;
    await new Promise((r) => setTimeout(r, Math.max(0, o.readEveryMs - (performance.now() - t0))));
  }
});
const floor = o.floorRead && (async () => {
  const { Client } = require(o.floorRead.pg);
  const db = new Client({ connectionString: o.floorRead.databaseUrl, application_name: 'bench:floor-read' });
  await db.connect();
  const every = o.readEveryMs / o.wallIds.length;
  await new Promise((r) => setTimeout(r, every / 2));
  while (running) {
    const at = epoch();
    const t0 = performance.now();
    const ok = await db.query({ name: 'floor-read', text: o.floorRead.text, values: o.floorRead.values }).then(() => 200, () => 0);
    emit({ kind: 'floor', at, ms: performance.now() - t0, status: ok });
    if (!running) break;
    await new Promise((r) => setTimeout(r, Math.max(0, every - (performance.now() - t0))));
  }
  await db.end().catch(() => undefined);
})().catch((err) => process.stderr.write('[probes] the floor read stopped: ' + err.message + '\n'));
const timer = setInterval(() => {
  for (const [kind, port, path] of [['readyz', o.port, '/readyz'], ['healthz', o.port, '/healthz'], ['health', o.healthPort, '/readyz']]) {
    const at = epoch();
    const t0 = performance.now();
    void get(port, path, false, {}).then((status) => emit({ kind, at, ms: performance.now() - t0, status }));
  }
}, o.probeEveryMs);
Promise.all([...loops, floor]).then(() => setTimeout(() => process.exit(0), 100));
`;

/** Starts the reads and probes in a child process; each answer reaches `onSample` as it comes. */
export class ProbeProcess {
  private readonly child: ChildProcess;
  private readonly exited: Promise<void>;

  constructor(opts: ProbeProcessOptions, onSample: (s: ProbeSample) => void) {
    // The hubs' token goes in the environment, which only this user can read, not in the command line.
    this.child = spawn(process.execPath, [...EVERY_PROCESS_NODE_FLAGS, '-e', CHILD], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, BENCH_PROBES: JSON.stringify(opts) } });
    createInterface({ input: this.child.stdout! }).on('line', (line) => {
      const s = JSON.parse(line) as ProbeSample;
      // The child's epoch milliseconds on this process's performance.now() clock.
      onSample({ ...s, at: s.at - performance.timeOrigin });
    });
    this.exited = new Promise((resolve) => this.child.once('exit', () => resolve()));
  }

  /** Stops sending; resolves once the reads under way have answered (15 s at most each). */
  async stop(): Promise<void> {
    this.child.kill('SIGTERM');
    const bound = setTimeout(() => this.child.kill('SIGKILL'), 20_000);
    await this.exited;
    clearTimeout(bound);
  }
}
