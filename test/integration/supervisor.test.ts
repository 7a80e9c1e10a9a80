import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PIPELINE_KINDS, ROLES } from '../../services/supervisor/roles';
import { TEST_DB_PREFIX, TEST_PG_BASE, dropDatabase, testRunId, withAdmin } from '../support/test-db';
import { waitFor } from '../support/test-api';
import { SERVICE_ENV_DEFAULTS } from '../../services/supervisor/child-env';
import { connectionFlood, portSockets } from '../support/sockets';
import { closedPort } from '../support/api-process';
import { alive, childrenOf, followLogRecords } from '../support/child-process';

const ROOT = path.resolve(__dirname, '../..');
// Named after this run, so another run's global setup does not take it for a stale one and drop it.
const dbName = `${TEST_DB_PREFIX}${testRunId()}_supervisor_${randomUUID().slice(0, 8)}`;

// npm start builds, migrates and starts its processes, twice in this file: on a busy 2-core machine that takes minutes.
jest.setTimeout(330_000);

/** Connections opened at once against the API: a shift's devices reconnecting after a network blip. */
const FLOOD = 1000;
/** /readyz on a new connection during the flood; it took 16–32 s when the supervisor accepted every connection. */
const READY_DURING_FLOOD_MS = 5_000;

interface LogLine {
  role?: string;
  child?: string;
  msg?: string;
  pids?: Record<string, number[]>;
  port?: number;
  pid?: number;
  kind?: string;
  healthPort?: number;
  thread?: boolean;
}

/** A process's scheduling niceness (/proc/<pid>/stat, field 19). */
function niceness(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}

function cmdline(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return [];
  }
}

interface NpmStart {
  npm: ChildProcess;
  lines: LogLine[];
  /** The log's tail, for a failure message. */
  why(): string;
  /** Every pid this run started (to kill whatever is left at the end). */
  started: number[];
  /** The supervisor (npm's child), once its roles started. */
  supervisor?: number;
}

const runs: NpmStart[] = [];

afterAll(async () => {
  // Never leave a process behind, whatever failed above: the supervisor first (alive, it starts a killed
  // child again), then the children it runs now and every one it started.
  for (const run of runs) {
    const supervisor = run.supervisor !== undefined && alive(run.supervisor) ? [run.supervisor] : [];
    const children = supervisor.flatMap((pid) => childrenOf(pid));
    for (const pid of [...supervisor, ...children, ...run.started]) if (alive(pid)) process.kill(pid, 'SIGKILL');
    if (run.npm.pid && alive(run.npm.pid)) run.npm.kill('SIGKILL');
  }
  await withAdmin((pg) => dropDatabase(pg, dbName));
});

function npmStart(env: Record<string, string>): NpmStart {
  const lines: LogLine[] = [];
  let output = '';
  const npm = spawn('npm', ['start'], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: `${TEST_PG_BASE}/${dbName}`,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      SEED_DEMO: 'true',
      NODE_ENV: 'test',
      QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}-supervisor`,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  followLogRecords<LogLine>(npm, (l) => lines.push(l), (chunk) => {
    output = (output + chunk.toString()).slice(-200_000);
  });
  const run: NpmStart = { npm, lines, why: () => `\n--- output ---\n${output.slice(-4000)}`, started: [] };
  runs.push(run);
  return run;
}

async function rolesStarted(run: NpmStart): Promise<Record<string, number[]>> {
  // npm start compiles first (incremental: quick when dist/ is current, about 20 s from scratch on one core).
  const line = await waitFor(() => run.lines.find((l) => l.msg === 'every role started'), { timeoutMs: 150_000, what: 'the build and the supervisor to start its roles' }).catch((e) => {
    throw new Error(`${e}${run.why()}`);
  });
  run.started.push(...Object.values(line.pids!).flat());
  run.supervisor ??= childrenOf(run.npm.pid!)[0];
  return line.pids!;
}

async function apiPort(run: NpmStart): Promise<number> {
  return (await waitFor(() => run.lines.find((l) => l.role === 'api' && typeof l.port === 'number'), { timeoutMs: 90_000, what: 'the API to listen' })).port!;
}

async function readyz(port: number): Promise<{ status: number; ms: number; body: string }> {
  const t0 = performance.now();
  // A connection of its own (no keep-alive pool): a load balancer's probe.
  const res = await fetch(`http://127.0.0.1:${port}/readyz`, { headers: { connection: 'close' }, signal: AbortSignal.timeout(60_000) });
  const body = await res.text();
  return { status: res.status, ms: performance.now() - t0, body };
}

/** One SIGTERM to the pid that was started stops everything, the API first. */
async function stopAll(run: NpmStart, supervisorPid: number): Promise<void> {
  process.kill(run.npm.pid!, 'SIGTERM');
  const exit = await new Promise<number | null>((resolve) => run.npm.once('exit', (code) => resolve(code)));
  expect(exit).toBe(0);
  await waitFor(() => [supervisorPid, ...run.started].every((p) => !alive(p)), { timeoutMs: 60_000, what: 'every child to exit' });
  const stopOrder = run.lines.filter((l) => l.role === 'supervisor' && /^stopping /.test(l.msg ?? '')).map((l) => l.child);
  expect(stopOrder[0]).toBe('api');
  expect(stopOrder).toEqual(expect.arrayContaining(ROLES.map((r) => r.role)));
  expect(run.lines.some((l) => l.msg === 'every process stopped')).toBe(true);
}

test('npm start runs its roles, grouped, each in its own process; the API serves its own socket through a flood of connections; crashed processes come back whole; a signal stops all in order', async () => {
  const run = npmStart({ HEALTH_PORT: String(await closedPort()) });
  const pids = await rolesStarted(run);
  expect(Object.keys(pids).sort()).toEqual(ROLES.map((r) => r.role).sort());
  // On this 2-core machine, one sorting worker and one process for the whole pipeline.
  expect(pids.pipeline).toHaveLength(1);
  expect(pids.api).toHaveLength(1);
  expect(cmdline(pids.pipeline![0]!)).toContain(PIPELINE_KINDS.join(','));
  // npm execs node: the supervisor is npm's child, and every role is the supervisor's child.
  const [supervisorPid] = childrenOf(run.npm.pid!);
  expect(childrenOf(supervisorPid!).sort()).toEqual(expect.arrayContaining([...run.started].sort()));
  // Each child starts with the service environment defaults (services/supervisor/child-env.ts).
  for (const pid of run.started) {
    const env = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
    expect(env).toEqual(expect.arrayContaining(Object.entries(SERVICE_ENV_DEFAULTS).map(([k, v]) => `${k}=${v}`)));
  }
  // The API's /readyz waits at start until the sorting workers hold every command partition (roles.ts).
  expect(readFileSync(`/proc/${pids.api![0]}/environ`, 'utf8').split('\0')).toContain('READYZ_WAITS_FOR_PARTITIONS_MS=10000');
  expect(readFileSync(`/proc/${pids.sorting![0]}/environ`, 'utf8').split('\0')).not.toContain('READYZ_WAITS_FOR_PARTITIONS_MS=10000');
  // The API's niceness (roles.ts) where the system allows it (as root here), the others' the default.
  const allowed = process.getuid?.() === 0;
  expect(niceness(pids.api![0]!)).toBe(allowed ? -5 : 0);
  expect(niceness(pids.sorting![0]!)).toBe(0);
  // The grouped process started every one of its kinds in one Runtime.
  const groupRole = `worker:${PIPELINE_KINDS.join('+')}`;
  await waitFor(() => PIPELINE_KINDS.every((k) => run.lines.some((l) => l.role === groupRole && l.msg === `worker '${k}' started`)), {
    timeoutMs: 90_000,
    what: 'every pipeline kind to start',
  });

  // The API answers (the demo client was seeded by the one-shot migration).
  const port = await apiPort(run);
  const token = await waitFor(
    async () => {
      const res = await fetch(`http://127.0.0.1:${port}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'admin@demo.local', password: 'demo-admin-1' }),
      });
      return res.status === 200 ? ((await res.json()) as { access_token: string }).access_token : undefined;
    },
    { timeoutMs: 90_000, what: 'a sign-in through the API' },
  ).catch((e) => {
    throw new Error(`${e}${run.why()}`);
  });
  expect(token).toBeTruthy();

  // The API listens on a socket of its own: the supervisor holds none of the port's sockets.
  const holders = [supervisorPid!, ...pids.api!];
  const before = portSockets(port, holders);
  expect([...before.listening.keys()]).toEqual([pids.api![0]]);

  // A flood of new connections, each with a request: every one is answered, and a new connection's
  // /readyz meanwhile is answered within seconds, on PORT and on the health listener; every connection
  // is held by the API process itself.
  const healthLine = await waitFor(() => run.lines.find((l) => l.role === 'api' && typeof l.healthPort === 'number'), { timeoutMs: 30_000, what: 'the health listener' });
  const healthPort = healthLine.healthPort!;
  // A lone API process answers its probes on a thread of its own (services/api/http/health-listener.ts).
  expect(healthLine.thread).toBe(true);
  // Ready first (the sorting workers hold every partition), as a load balancer would wait for.
  await waitFor(async () => (await readyz(port)).status === 200, { timeoutMs: 60_000, what: 'the API to be ready' });
  const flood = connectionFlood(port, FLOOD);
  const [ready, probe] = await Promise.all([readyz(port), readyz(healthPort)]);
  const { statuses, close } = await flood;
  try {
    // On failure the received answer is printed whole, its checks with it.
    expect(`${ready.status} ${ready.body}`).toMatch(/^200 /);
    expect(ready.ms).toBeLessThan(READY_DURING_FLOOD_MS);
    expect(`${probe.status} ${probe.body}`).toMatch(/^200 /);
    expect(probe.ms).toBeLessThan(READY_DURING_FLOOD_MS);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    const during = portSockets(port, holders);
    expect(during.established.get(supervisorPid!) ?? 0).toBe(0);
    expect(during.established.get(pids.api![0]!) ?? 0).toBeGreaterThanOrEqual(FLOOD);
  } finally {
    close();
  }

  // A crashed grouped process is replaced with all its kinds, and the supervisor says so.
  const group = pids.pipeline![0]!;
  const startedBefore = run.lines.filter((l) => l.role === groupRole && /^worker '.*' started$/.test(l.msg ?? '')).length;
  process.kill(group, 'SIGKILL');
  await waitFor(() => run.lines.find((l) => l.role === 'supervisor' && l.child === 'pipeline' && l.pid === group && /restarting/.test(l.msg ?? '')), {
    timeoutMs: 10_000,
    what: 'the crash to be logged',
  });
  const newGroup = await waitFor(() => childrenOf(supervisorPid!).find((p) => !run.started.includes(p) && cmdline(p).includes(PIPELINE_KINDS.join(','))), {
    timeoutMs: 15_000,
    what: 'a new pipeline process',
  });
  run.started.push(newGroup);
  await waitFor(() => run.lines.filter((l) => l.role === groupRole && /^worker '.*' started$/.test(l.msg ?? '')).length >= startedBefore + PIPELINE_KINDS.length, {
    timeoutMs: 90_000,
    what: 'the new pipeline process to start every kind again',
  });

  // A crashed sorting worker is replaced too.
  const victim = pids.sorting![0]!;
  process.kill(victim, 'SIGKILL');
  await waitFor(() => run.lines.find((l) => l.role === 'supervisor' && l.child === 'sorting' && l.pid === victim && /restarting/.test(l.msg ?? '')), {
    timeoutMs: 10_000,
    what: 'the crash to be logged',
  });
  const replacement = await waitFor(() => childrenOf(supervisorPid!).find((p) => !run.started.includes(p) && cmdline(p).includes('sorting')), {
    timeoutMs: 15_000,
    what: 'a new sorting process',
  });
  run.started.push(replacement);

  await stopAll(run, supervisorPid!);
});

test('with several API processes the kernel hands each connection to one of them: the supervisor only holds the listening socket', async () => {
  const run = npmStart({ API_PROCESSES: '2', SEED_DEMO: 'false', HEALTH_PORT: String(await closedPort()) });
  const pids = await rolesStarted(run);
  expect(pids.api).toHaveLength(2);
  const [supervisorPid] = childrenOf(run.npm.pid!);
  const port = await apiPort(run);
  // Processes sharing a port listen through the supervisor, which a thread cannot: each answers its
  // probes on its main thread, on the one health port they share.
  const healthLines = await waitFor(() => {
    const lines = run.lines.filter((l) => l.role === 'api' && typeof l.healthPort === 'number');
    return lines.length === 2 ? lines : undefined;
  }, { timeoutMs: 30_000, what: 'both health listeners' });
  expect(healthLines.map((l) => l.thread)).toEqual([false, false]);
  // Each process is ready on its own (its own checks and start gate), and the kernel hands a probe to
  // either: both are ready once many probes in a row, on each port, all answer 200.
  await waitFor(
    async () => {
      for (let i = 0; i < 20; i++) for (const p of [port, healthLines[0]!.healthPort!]) if ((await readyz(p)).status !== 200) return false;
      return true;
    },
    { timeoutMs: 60_000, what: 'both API processes to be ready, on PORT and on the health port' },
  );
  const holders = [supervisorPid!, ...pids.api!];

  const flood = connectionFlood(port, FLOOD);
  const ready = await readyz(port);
  const { statuses, close } = await flood;
  try {
    expect(ready.status).toBe(200);
    expect(ready.ms).toBeLessThan(READY_DURING_FLOOD_MS);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    const during = portSockets(port, holders);
    expect(during.established.get(supervisorPid!) ?? 0).toBe(0);
    expect(pids.api!.reduce((n, pid) => n + (during.established.get(pid) ?? 0), 0)).toBeGreaterThanOrEqual(FLOOD);
    // SCHED_NONE: each API process accepts on the shared listening socket itself (round-robin would
    // leave it to the supervisor alone).
    for (const pid of pids.api!) expect(during.listening.get(pid)).toBe(1);
  } finally {
    close();
  }
  await stopAll(run, supervisorPid!);
});
