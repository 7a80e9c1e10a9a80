import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROLES } from '../../services/supervisor/roles';
import { WORKER_KINDS } from '../../workers/registry';
import { TEST_DB_PREFIX, TEST_PG_BASE, dropDatabase, testRunId, withAdmin } from '../support/test-db';
import { waitFor } from '../support/test-api';
import { SERVICE_ENV_DEFAULTS } from '../../services/supervisor/child-env';

const ROOT = path.resolve(__dirname, '../..');
// Named after this run, so another run's global setup does not take it for a stale one and drop it.
const dbName = `${TEST_DB_PREFIX}${testRunId()}_supervisor_${randomUUID().slice(0, 8)}`;

// Five node processes start under tsx: on a busy 2-core machine that alone can take a minute.
jest.setTimeout(330_000);

interface LogLine {
  role?: string;
  child?: string;
  msg?: string;
  pids?: Record<string, number[]>;
  port?: number;
  pid?: number;
}

/** The direct children of a process (Linux /proc). */
function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

let npm: ChildProcess | undefined;
let started: number[] = [];

afterAll(async () => {
  // Never leave a process behind, whatever failed above.
  for (const pid of started) if (alive(pid)) process.kill(pid, 'SIGKILL');
  if (npm?.pid && alive(npm.pid)) npm.kill('SIGKILL');
  await withAdmin((pg) => dropDatabase(pg, dbName));
});

test('every worker kind has a role in the supervisor', () => {
  const roles = new Set(ROLES.map((r) => r.args[0] ?? r.role));
  for (const kind of Object.keys(WORKER_KINDS)) expect(roles).toContain(kind);
  expect(ROLES.map((r) => r.role)).toContain('api');
});

test('npm start runs every role as its own process, restarts a crashed one, and stops all on a signal to its pid', async () => {
  const lines: LogLine[] = [];
  let output = '';
  npm = spawn('npm', ['start'], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: `${TEST_PG_BASE}/${dbName}`,
      PORT: '0',
      LOG_LEVEL: 'info',
      SEED_DEMO: 'true',
      SORTING_WORKERS: '2',
      NODE_ENV: 'test',
      QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}-supervisor`,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const onData = (chunk: Buffer) => {
    output += chunk.toString();
    for (const line of chunk.toString().split('\n')) {
      if (!line.startsWith('{')) continue;
      try {
        lines.push(JSON.parse(line) as LogLine);
      } catch {
        // a line split across chunks: not one we wait for
      }
    }
  };
  npm.stdout!.on('data', onData);
  npm.stderr!.on('data', onData);
  const npmPid = npm.pid!;
  const why = () => `\n--- output ---\n${output.slice(-4000)}`;

  // npm start compiles first (incremental: quick when dist/ is current, about 20 s from scratch on one core).
  const startedLine = await waitFor(() => lines.find((l) => l.msg === 'every role started'), { timeoutMs: 150_000, what: 'the build and the supervisor to start its roles' }).catch((e) => {
    throw new Error(`${e}${why()}`);
  });
  const pids = startedLine.pids!;
  started = Object.values(pids).flat();
  expect(Object.keys(pids).sort()).toEqual(ROLES.map((r) => r.role).sort());
  expect(pids.sorting).toHaveLength(2);
  // npm execs node: the supervisor is npm's child, and every role is the supervisor's child.
  const [supervisorPid] = childrenOf(npmPid);
  expect(childrenOf(supervisorPid).sort()).toEqual(expect.arrayContaining([...started].sort()));
  // Each child starts with the service environment defaults (services/supervisor/child-env.ts).
  for (const pid of started) {
    const env = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
    expect(env).toEqual(expect.arrayContaining(Object.entries(SERVICE_ENV_DEFAULTS).map(([k, v]) => `${k}=${v}`)));
  }

  // The API answers (the demo client was seeded by the one-shot migration).
  const apiPort = (await waitFor(() => lines.find((l) => l.role === 'api' && typeof l.port === 'number'), { timeoutMs: 60_000, what: 'the API to listen' })).port!;
  const token = await waitFor(
    async () => {
      const res = await fetch(`http://127.0.0.1:${apiPort}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'admin@demo.local', password: 'demo-admin-1' }),
      });
      return res.status === 200 ? ((await res.json()) as { access_token: string }).access_token : undefined;
    },
    { timeoutMs: 90_000, what: 'a sign-in through the API' },
  ).catch((e) => {
    throw new Error(`${e}${why()}`);
  });
  expect(token).toBeTruthy();

  // A crashed sorting worker is replaced, and the supervisor says so.
  const victim = pids.sorting[0];
  process.kill(victim, 'SIGKILL');
  await waitFor(() => lines.find((l) => l.role === 'supervisor' && l.child === 'sorting' && l.pid === victim && /restarting/.test(l.msg ?? '')), {
    timeoutMs: 10_000,
    what: 'the crash to be logged',
  });
  const replacement = await waitFor(
    () => {
      const now = childrenOf(supervisorPid).filter((p) => !started.includes(p) && readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('sorting'));
      return now[0];
    },
    { timeoutMs: 15_000, what: 'a new sorting process' },
  );
  started.push(replacement);

  // One SIGTERM to the pid that was started stops everything.
  process.kill(npmPid, 'SIGTERM');
  const exit = await new Promise<number | null>((resolve) => npm!.once('exit', (code) => resolve(code)));
  expect(exit).toBe(0);
  await waitFor(() => [supervisorPid, ...started].every((p) => !alive(p)), { timeoutMs: 60_000, what: 'every child to exit' });
  // In order: the API first, the sorting workers after it.
  const stopOrder = lines.filter((l) => l.role === 'supervisor' && /^stopping /.test(l.msg ?? '')).map((l) => l.child);
  expect(stopOrder[0]).toBe('api');
  expect(stopOrder.indexOf('sorting')).toBeGreaterThan(0);
  expect(lines.some((l) => l.msg === 'every process stopped')).toBe(true);
});
