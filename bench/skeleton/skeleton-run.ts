import os from 'node:os';
import path from 'node:path';
import { Client as PgClient } from 'pg';
import { withDatabase, type BenchSettings } from '../bench-settings';
import { monotonicUs } from '../cpu-profile';
import { CpuMeter } from '../cpu-usage';
import { BenchHttp } from '../http-client';
import { StatementStats } from '../lib/pg-insight';
import { RedisCommandMeter } from '../lib/redis-commands';
import { ServiceProcess, pollUntil } from '../service-processes';
import { summarize, type LatencySummary } from '../stats';
import { commandsPerPair, rolesPerPair, statementsPerPair, type CommandBudget, type RoleCpu, type StatementBudget } from '../lib/budget';
import { SKELETON_WALLS, resetSkeletonDatabase } from './skeleton-schema';

/*
 * The skeleton of the service's architecture, run by the bench beside the service (docs/benchmarks.md,
 * "The skeleton"): its API and worker processes (bench/skeleton/skeleton-api.ts, skeleton-worker.ts) on
 * a database of their own, the same Redis, a closed loop of 60 clients over 10 walls, each a scan then
 * a confirm, both a command through the queue. Measured as the service is: CPU per pair by role (the
 * API, the worker as `sorting`, the PostgreSQL backends by application_name, Redis), statements and
 * Redis commands per pair.
 */

export const SKELETON_CLIENTS = 60;

export interface SkeletonRun {
  seconds: number;
  pairs: number;
  pairsPerSecond: number;
  scan: LatencySummary;
  confirm: LatencySummary;
  errors: number;
  loadAvg1m: number;
  cpuMs: Record<string, number>;
  cpu: RoleCpu;
  /** Wake-ups (voluntary context switches, bench/cpu-usage.ts) per process group, and per pair by budget role. */
  wokenCount: Record<string, number>;
  wakeups: RoleCpu;
  statements: StatementBudget[];
  redisCommands: CommandBudget[];
  /** The measured window on the monotonic clock (µs), to cut CPU profiles. */
  window: { fromUs: number; toUs: number };
  /** Process role → pid, for the profiles. */
  pids: Record<string, number>;
  /**
   * The closed loops pooled into these figures, in the order they ran (pooledSkeleton): the skeleton
   * before the service and after it. Absent for a single run.
   */
  rounds?: { pairsPerSecond: number; cpuPerPairMs: number; loadAvg1m: number }[];
}

/**
 * Two or more closed loops of the skeleton as one: CPU per pair over all their pairs, pairs per second
 * over all their seconds; latencies, budgets, window and pids of the first. Run before and after the
 * service, their pool follows the machine's drift over the minutes between the skeleton and the service,
 * which one run before the service alone left in the ratios (docs/benchmarks.md, "The skeleton").
 */
export function pooledSkeleton(runs: readonly SkeletonRun[]): SkeletonRun {
  const [first] = runs;
  if (!first) throw new Error('no skeleton run to pool');
  if (runs.length === 1) return first;
  const added = (of: (r: SkeletonRun) => Record<string, number>) => {
    const sum: Record<string, number> = {};
    for (const r of runs) for (const [k, v] of Object.entries(of(r))) sum[k] = (sum[k] ?? 0) + v;
    return sum;
  };
  const cpuMs = added((r) => r.cpuMs);
  const wokenCount = added((r) => r.wokenCount);
  const pairs = runs.reduce((a, r) => a + r.pairs, 0);
  const seconds = runs.reduce((a, r) => a + r.seconds, 0);
  return {
    ...first,
    seconds: Math.round(seconds * 100) / 100,
    pairs,
    pairsPerSecond: seconds > 0 ? Math.round((pairs / seconds) * 10) / 10 : NaN,
    errors: runs.reduce((a, r) => a + r.errors, 0),
    cpuMs,
    cpu: rolesPerPair(cpuMs, pairs),
    wokenCount,
    wakeups: rolesPerPair(wokenCount, pairs),
    rounds: runs.map((r) => ({ pairsPerSecond: r.pairsPerSecond, cpuPerPairMs: r.cpu.total, loadAvg1m: r.loadAvg1m })),
  };
}

/** The skeleton's database: `<BENCH_DATABASE>_skeleton` on the same server. */
export function skeletonDatabaseUrl(s: BenchSettings): string {
  return withDatabase(s.databaseUrl, `${new URL(s.databaseUrl).pathname.slice(1)}_skeleton`);
}

async function closedLoop(http: BenchHttp, durationMs: number): Promise<{ pairs: number; scan: number[]; confirm: number[]; errors: number; seconds: number }> {
  const scan: number[] = [];
  const confirm: number[] = [];
  let pairs = 0;
  let errors = 0;
  const start = performance.now();
  const end = start + durationMs;
  await Promise.all(
    Array.from({ length: SKELETON_CLIENTS }, async (_, i) => {
      const wall = (i % SKELETON_WALLS) + 1;
      for (let n = 0; performance.now() < end; n++) {
        const t0 = performance.now();
        const a = await http.request('POST', `/walls/${wall}/items`, { body: { barcode: `UPC-${i}-${n}` }, timeoutMs: 12_000 });
        const t1 = performance.now();
        if (a.status !== 200) {
          errors++;
          continue;
        }
        const b = await http.request('POST', `/walls/${wall}/items/${(a.body as { item: number }).item}/confirm`, { timeoutMs: 12_000 });
        if (b.status !== 200) {
          errors++;
          continue;
        }
        scan.push(t1 - t0);
        confirm.push(performance.now() - t1);
        pairs++;
      }
    }),
  );
  return { pairs, scan, confirm, errors, seconds: (performance.now() - start) / 1000 };
}

export async function runSkeleton(
  s: BenchSettings,
  opts: { redisPid: number | undefined; nodeArgs: string[]; say: (line: string) => void },
): Promise<SkeletonRun> {
  const { say } = opts;
  const databaseUrl = skeletonDatabaseUrl(s);
  const database = new URL(databaseUrl).pathname.slice(1);
  await resetSkeletonDatabase(s.adminDatabaseUrl, databaseUrl);
  const port = s.port + 3;
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: databaseUrl, REDIS_URL: s.redisUrl, SKELETON_PORT: String(port), SKELETON_PREFIX: `${s.queuePrefix}-skeleton`, SKELETON_PARTITIONS: '8' };
  delete env.NODE_OPTIONS;
  if (process.env.BENCH_SERVICE_NODE_OPTIONS !== undefined) env.NODE_OPTIONS = process.env.BENCH_SERVICE_NODE_OPTIONS;
  const spawn = (role: string, script: string) =>
    new ServiceProcess(role, s.root, { command: process.execPath, args: [...opts.nodeArgs, '--import', 'tsx', path.join(s.root, 'bench/skeleton', script)], wrapped: false }, env, path.join(s.resultsDir, `skeleton-${role}.log`));
  const api = spawn('api', 'skeleton-api.ts');
  const worker = spawn('sorting', 'skeleton-worker.ts');
  const http = new BenchHttp('127.0.0.1', port);
  const pg = new PgClient({ connectionString: databaseUrl });
  try {
    const dead = () => [api, worker].find((p) => !p.running);
    await pollUntil('the skeleton (API and a worker on every partition queue)', async () => (await http.request('GET', '/readyz', { timeoutMs: 2000 })).status === 200, {
      timeoutMs: 60_000,
      abort: () => (dead() ? `the skeleton's ${dead()!.name} exited:\n${dead()!.lastLines()}` : undefined),
    });
    await pg.connect();
    const stats = await StatementStats.open(pg, s.root);
    if (s.warmupSeconds > 0) {
      say(`[skeleton] warm-up, ${s.warmupSeconds} s closed loop (not measured)`);
      await closedLoop(http, s.warmupSeconds * 1000);
    }
    const pids = { api: api.proc.pid!, sorting: worker.proc.pid! };
    const meter = new CpuMeter(databaseUrl, database, () => ({ ...pids, redis: opts.redisPid, bench: process.pid }), (app) => (app === 'skeleton:worker' ? 'sorting' : 'other'));
    const commands = new RedisCommandMeter(s.redisUrl);
    say(`[skeleton] closed loop, ${SKELETON_CLIENTS} clients over ${SKELETON_WALLS} walls, ${s.seconds} s`);
    await stats.reset(pg);
    const cpuBefore = await meter.snapshot();
    const commandsBefore = await commands.read();
    const fromUs = monotonicUs();
    const run = await closedLoop(http, s.seconds * 1000);
    const toUs = monotonicUs();
    const commandsAfter = await commands.read();
    const cpuAfter = await meter.snapshot();
    const cpuMs = CpuMeter.used(cpuBefore, cpuAfter);
    const wokenCount = CpuMeter.woken(cpuBefore, cpuAfter);
    await commands.close();
    const result: SkeletonRun = {
      seconds: Math.round(run.seconds * 100) / 100,
      pairs: run.pairs,
      pairsPerSecond: Math.round((run.pairs / run.seconds) * 10) / 10,
      scan: summarize(run.scan),
      confirm: summarize(run.confirm),
      errors: run.errors,
      loadAvg1m: Math.round(os.loadavg()[0]! * 100) / 100,
      cpuMs,
      cpu: rolesPerPair(cpuMs, run.pairs),
      wokenCount,
      wakeups: rolesPerPair(wokenCount, run.pairs),
      statements: statementsPerPair((await stats.totals(pg)).map((q) => (q.statement.startsWith('with w as ( update skel_wall') ? { ...q, statement: 'skeleton-command' } : q)), run.pairs),
      redisCommands: commandsPerPair(commandsBefore, commandsAfter, run.pairs),
      window: { fromUs, toUs },
      pids,
    };
    say(
      `[skeleton] ${result.pairsPerSecond} pairs/s · scan p50 ${result.scan.p50} p99 ${result.scan.p99} ms · ${result.errors} errors · CPU ms/pair ${JSON.stringify(result.cpu.perPair)} (total ${result.cpu.total}) · load ${result.loadAvg1m}`,
    );
    return result;
  } finally {
    http.close();
    await pg.end().catch(() => undefined);
    await Promise.all([api.stop(), worker.stop()]);
  }
}
