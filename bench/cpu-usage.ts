import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { Client as PgClient } from 'pg';

let ticksPerSecond: number | undefined;
function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** CPU time (user + system) a process has used so far, ms; undefined when it is gone. */
export function cpuMs(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    return ((utime + stime) * 1000) / clockTicks();
  } catch {
    return undefined;
  }
}

/**
 * How often a process's threads have gone to sleep and been woken so far (the sum of their voluntary
 * context switches); undefined when it is gone. A hop between two processes is one such wake-up on
 * each side, and what one costs is what separates a fast machine from a slow one (docs/benchmarks.md,
 * "What a hop costs"): counted per pair, it is the same on any machine.
 */
export function wakeups(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    let sum = 0;
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      try {
        const status = readFileSync(`/proc/${pid}/task/${task}/status`, 'utf8');
        sum += Number(/^voluntary_ctxt_switches:\s*(\d+)/m.exec(status)?.[1] ?? 0);
      } catch {
        // A thread that ended between the listing and the read.
      }
    }
    return sum;
  } catch {
    return undefined;
  }
}

/** Per process group (a role, `redis`, `postgres:<group>`), per pid: CPU ms and wake-ups so far. */
export interface CpuSnapshot {
  cpu: Map<string, Map<number, number>>;
  wakeups: Map<string, Map<number, number>>;
}

/**
 * The service's roles from a backend's application_name (`sorting:<role>`, set per process by
 * shared/runtime/runtime.ts; `sorting:api:readiness` is the API's probe, `sorting:listen` the pipeline's
 * LISTEN connection, `sorting:wall-actor` the sorting worker's command pool). Anything else (the
 * bench's own statements) is `other`.
 */
export function serviceRoleOfBackend(applicationName: string): 'api' | 'sorting' | 'pipeline' | 'other' {
  if (applicationName === 'sorting:api' || applicationName.startsWith('sorting:api:')) return 'api';
  if (applicationName === 'sorting:worker:sorting' || applicationName === 'sorting:wall-actor') return 'sorting';
  if (applicationName.startsWith('sorting:worker:') || applicationName === 'sorting:listen') return 'pipeline';
  return 'other';
}

/**
 * CPU time of the API, the worker and the PostgreSQL backends serving the bench database, so a step
 * can say what one scan costs in CPU: a figure that other load on the machine does not distort the
 * way it distorts latency. Backends that come and go within a step are missed (the pools keep theirs).
 * With `backendGroup`, the backends are counted per group of their application_name (`postgres:<group>`)
 * instead of all together (`postgres`).
 */
export class CpuMeter {
  constructor(
    private readonly databaseUrl: string,
    private readonly database: string,
    /** Name → pid, or several pids (a role with several processes) counted together. */
    private readonly processes: () => Record<string, number | number[] | undefined>,
    private readonly backendGroup?: (applicationName: string) => string,
  ) {}

  async snapshot(): Promise<CpuSnapshot> {
    const snap: CpuSnapshot = { cpu: new Map(), wakeups: new Map() };
    const put = (figures: Map<string, Map<number, number>>, name: string, pid: number, value: number) => {
      let group = figures.get(name);
      if (!group) figures.set(name, (group = new Map()));
      group.set(pid, value);
    };
    const record = (name: string, pid: number) => {
      const ms = cpuMs(pid);
      const woken = wakeups(pid);
      if (ms === undefined || woken === undefined) return;
      put(snap.cpu, name, pid, ms);
      put(snap.wakeups, name, pid, woken);
    };
    for (const [name, pids] of Object.entries(this.processes())) {
      for (const pid of Array.isArray(pids) ? pids : [pids]) if (pid) record(name, pid);
    }
    const pg = new PgClient({ connectionString: this.databaseUrl });
    await pg.connect();
    try {
      const { rows } = await pg.query<{ pid: number; app: string | null }>(
        'select pid, application_name as app, true as bench_probe from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
        [this.database],
      );
      if (!this.backendGroup) {
        snap.cpu.set('postgres', new Map());
        snap.wakeups.set('postgres', new Map());
      }
      for (const { pid, app } of rows) record(this.backendGroup ? `postgres:${this.backendGroup(app ?? '')}` : 'postgres', pid);
    } finally {
      await pg.end();
    }
    return snap;
  }

  /** CPU ms used between two snapshots, per process group. */
  static used(before: CpuSnapshot, after: CpuSnapshot): Record<string, number> {
    return difference(before.cpu, after.cpu);
  }

  /** Wake-ups (voluntary context switches of every thread) between two snapshots, per process group. */
  static woken(before: CpuSnapshot, after: CpuSnapshot): Record<string, number> {
    return difference(before.wakeups, after.wakeups);
  }
}

function difference(before: Map<string, Map<number, number>>, after: Map<string, Map<number, number>>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, pids] of after) {
    let sum = 0;
    // A process born during the step (a new pool connection) counts from zero.
    for (const [pid, end] of pids) sum += end - (before.get(name)?.get(pid) ?? 0);
    out[name] = Math.round(sum);
  }
  return out;
}
