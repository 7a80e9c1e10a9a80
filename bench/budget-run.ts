import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../shared/config/config';
import { envSwitch, loadBenchSettings, serviceEnv, type BenchSettings } from './bench-settings';
import { resetDatabase, resetRedis, seed } from './bench-seed';
import { runBadDayOnce, slowWindowsText, type BadDayRun, type FloorReference } from './bad-day';
import { BUDGET_ROLES, compareRoles, commandTotals, goals, type CommandBudget, type Condition, type Goal, type RoleComparison, type RoleCpu, type StatementBudget } from './lib/budget';
import { startCpuHog } from './lib/cpu-hog';
import { printProfile, summarizeProfile, type ProfileSummary } from './cpu-profile';
import { cpuMs } from './cpu-usage';
import { startOwnRedis, type OwnRedis } from './own-redis';
import { measureQueueRoundTrip } from './queue-probe';
import { buildServices } from './service-processes';
import { pooledSkeleton, runSkeleton, type SkeletonRun } from './skeleton/skeleton-run';
import { summarize } from './stats';
import { hopCost, type HopCost } from './lib/hop-cost';
import { createRedis } from '../shared/redis/redis';

/*
 * `npm run bench` (docs/benchmarks.md): the skeleton of the service's architecture and the service
 * itself (`npm start`'s compiled processes on the bad day's floor: 10 walls × 6 sorters, shippers, hubs
 * reading, and the deep and cold walls), one after the other on the same machine, with the floor (a bare
 * PostgreSQL transaction and a bare queue round trip) of the same run; all of it twice: quiet (the
 * machine as it is) and busy (one core kept busy by a spinning child, bench/lib/cpu-hog.ts). Prints CPU
 * per pair by role for both and their ratios, the per-pair budget (PostgreSQL statements, Redis commands,
 * Node CPU profiles with BENCH_CPU_PROF=1) and the goals, per condition. `--cpu-prof` (or
 * BENCH_CPU_PROF=1) profiles every process; `--quick` (or BENCH_QUICK=1): short steps, fewer of them;
 * `--quiet-only`, `--busy-only` (or BENCH_CONDITIONS): one condition. The other scenarios: `npm run bench:scenarios`.
 */

const say = (line: string) => console.log(line);

export interface BudgetSettings {
  quick: boolean;
  /** The service's steps (bad-day step names), in order. */
  steps: string[];
  /** `own` (a redis-server of the bench's own, the default) or `shared` (REDIS_URL). */
  redis: 'own' | 'shared';
  /** Quiet, busy or both, in that order. */
  conditions: Condition[];
  /** The skeleton run and the floor measured again after the service, each pooled with its run before (BENCH_SKELETON_AFTER=0: before it only). */
  skeletonAfter: boolean;
}

const CONDITIONS: readonly Condition[] = ['quiet', 'busy'];

/** BENCH_SERVICE_NODE_ARGS: node's own flags for npm start's supervisor, which its processes inherit (V8 flags NODE_OPTIONS refuses). */
const serviceNodeArgs = (): string[] => (process.env.BENCH_SERVICE_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);

function conditionsOf(env: NodeJS.ProcessEnv, argv: string[]): Condition[] {
  if (argv.includes('--quiet-only')) return ['quiet'];
  if (argv.includes('--busy-only')) return ['busy'];
  const raw = (env.BENCH_CONDITIONS ?? CONDITIONS.join(',')).split(',').map((v) => v.trim()).filter(Boolean);
  for (const v of raw) if (!CONDITIONS.includes(v as Condition)) throw new Error(`BENCH_CONDITIONS must list some of ${CONDITIONS.join(', ')}; got '${v}'.`);
  return CONDITIONS.filter((c) => raw.includes(c));
}

/** The bench settings as this run uses them: quick mode shortens what the caller did not set. */
export function budgetSettings(env: NodeJS.ProcessEnv = process.env, argv: string[] = process.argv.slice(2)): { s: BenchSettings; b: BudgetSettings } {
  const quick = argv.includes('--quick') || envSwitch(env.BENCH_QUICK, false);
  const base = loadBenchSettings();
  const seconds = env.BENCH_SECONDS ? base.seconds : quick ? 5 : 15;
  const s: BenchSettings = {
    ...base,
    cpuProf: base.cpuProf || argv.includes('--cpu-prof'),
    seconds,
    // Every wall's tote carries the warm-up and the open and closed steps (a unit a pair, 10 units an
    // order: on a machine whose closed loop does 1,000 pairs/s, about 330 orders a wall at 15 s steps);
    // wall 0's carries idle-1 and idle-1-fresh before them, up to about 300 pairs/s each there. A
    // tote used up sends nothing more: its step offers less than it says (a 15 s idle-1 at 225 pairs/s
    // and idle-1-fresh emptied 450 orders, and `open-100/s` offered 90 pairs/s), which the step and its
    // goal report.
    badDayOrdersPerWall: env.BENCH_BADDAY_ORDERS ? base.badDayOrdersPerWall : Math.max(150, Math.ceil((2 * seconds * 150) / 10)),
    badDayIdleWallOrders: env.BENCH_BADDAY_IDLE_ORDERS ? base.badDayIdleWallOrders : Math.max(300, Math.ceil((2 * seconds * 300) / 10) + 300),
    // Long enough for the processes' code to be optimized (V8 tiers a function up after enough calls): a
    // floor mid-shift runs warm code, and 1 s left idle-1 measuring half-cold code (docs/benchmarks.md,
    // "The warm-up").
    warmupSeconds: env.BENCH_WARMUP_SECONDS ? base.warmupSeconds : quick ? 20 : 30,
    floorN: env.BENCH_FLOOR_N ? base.floorN : quick ? 300 : 1000,
    queueN: env.BENCH_QUEUE_N ? base.queueN : quick ? 300 : 1000,
    badDayRates: env.BENCH_BADDAY_RATES ? base.badDayRates : [100, 300],
    // One run (the first statistics mode asked for).
    badDayStatistics: [base.badDayStatistics[0] ?? 'fresh'],
  };
  // idle-1-fresh and idle-1-deep-keepalive part idle-1-deep's two differences from idle-1: the wall and the connections.
  const idle = ['idle-1', 'idle-1-fresh', 'idle-1-deep', 'idle-1-deep-keepalive', 'cold-wall'];
  const steps = base.badDaySteps ?? (quick ? [...idle, 'closed-60'] : [...idle, ...s.badDayRates.map((r) => `open-${r}/s`), 'closed-60']);
  const redis = env.BENCH_REDIS === 'shared' ? 'shared' : 'own';
  const skeletonAfter = envSwitch(env.BENCH_SKELETON_AFTER, true);
  return { s: { ...s, badDaySteps: steps }, b: { quick, steps, redis, conditions: conditionsOf(env, argv), skeletonAfter } };
}

export interface Floor {
  reference: FloorReference;
  pgP50: number;
  queueP50: number;
  /** One hop between two processes under this condition (bench/lib/hop-cost.ts), or null if the probe failed. */
  hop: HopCost | null;
  /**
   * The floors pooled into these figures (pooledFloor), in the order they were measured: before the
   * service and after it. Absent for a single one.
   */
  rounds?: { p50Ms: number; cpuPerPairMs: number; loadAvg1m: number }[];
}

/** One measurement of the floor, with its samples for pooling. */
export interface FloorMeasure {
  floor: Floor;
  pgSamples: number[];
  queueSamples: number[];
  loadAvg1m: number;
}

/**
 * The floor measured before and after the service as one, as the skeleton's closed loops are
 * (pooledSkeleton): each part's p50 over both measurements' samples, the CPU per pair their mean, the
 * hop the first's. The machine's speed drifts over the minutes between the floor and the service's idle
 * steps; a floor on each side of them follows it (docs/benchmarks.md, "The skeleton").
 */
export function pooledFloor(measures: readonly FloorMeasure[]): Floor {
  const [first] = measures;
  if (!first) throw new Error('no floor to pool');
  if (measures.length === 1) return first.floor;
  const cpuPerPairMs = Math.round((measures.reduce((a, m) => a + m.floor.reference.cpuPerPairMs, 0) / measures.length) * 100) / 100;
  return {
    ...floorOf(measures.flatMap((m) => m.pgSamples), measures.flatMap((m) => m.queueSamples), cpuPerPairMs, first.floor.hop),
    rounds: measures.map((m) => ({ p50Ms: m.floor.reference.p50Ms, cpuPerPairMs: m.floor.reference.cpuPerPairMs, loadAvg1m: m.loadAvg1m })),
  };
}

/** The floor's figures from its samples: floor p50 = the bare write's p50 + the bare round trip's. */
function floorOf(pgSamples: number[], queueSamples: number[], cpuPerPairMs: number, hop: HopCost | null): Floor {
  const pgP50 = summarize(pgSamples).p50;
  const queueP50 = summarize(queueSamples).p50;
  return { reference: { p50Ms: Math.round((pgP50 + queueP50) * 100) / 100, cpuPerPairMs }, pgP50, queueP50, hop };
}

/** The floor of this run, or null with why (it calls the sorting worker's write directly, which may have changed shape). */
async function measureFloor(s: BenchSettings, redisPid: number | undefined, withHop = true): Promise<FloorMeasure | { error: string }> {
  try {
    const { measurePgFloor } = await import('./lib/pg-floor');
    say(`[floor] database ${new URL(s.databaseUrl).pathname.slice(1)}: drop, create, migrate, seed`);
    await resetDatabase(s);
    await resetRedis(s);
    const seeded = await seed(s);
    say(`[floor] bare PostgreSQL: ${s.floorN} scan-shaped transactions; bare queue: ${s.queueN} add → reply round trips`);
    const pg = await measurePgFloor(s.databaseUrl, seeded.floor, s.floorN);
    const redisBefore = cpuMs(redisPid);
    const clientBefore = process.cpuUsage();
    const queue = await measureQueueRoundTrip({ redisUrl: s.redisUrl, prefix: s.queuePrefix }, s.queueN);
    const client = process.cpuUsage(clientBefore);
    const redisMs = ((cpuMs(redisPid) ?? NaN) - (redisBefore ?? NaN)) / s.queueN;
    const clientMs = (client.user + client.system) / 1000 / s.queueN;
    // A pair is a scan and a confirm: two of each, client side included.
    const cpuPerPairMs = Math.round(2 * (pg.cpuPerTxMs.postgres + pg.cpuPerTxMs.client + redisMs + clientMs) * 100) / 100;
    const hop = withHop
      ? await hopCost().catch((err: Error) => {
          say(`[floor] hop between two processes not measured: ${err.message}`);
          return null;
        })
      : null;
    const floor = floorOf(pg.samples, queue.samples, cpuPerPairMs, hop);
    say(`[floor] PG p50 ${floor.pgP50} ms · queue p50 ${floor.queueP50} ms · floor p50 ${floor.reference.p50Ms} ms · ${cpuPerPairMs} ms CPU per pair`);
    if (hop) say(`[floor] a hop between two processes: ${hopLine(hop)}`);
    return { floor, pgSamples: pg.samples, queueSamples: queue.samples, loadAvg1m: os.loadavg()[0]! };
  } catch (err) {
    const error = (err as Error).message.split('\n')[0]!;
    say(`[floor] not measured: ${error}`);
    return { error };
  }
}

/** A hop's figures in words (bench/lib/hop-cost.ts). */
function hopLine(h: HopCost): string {
  const one = h.oneCore ? `; both on one core ${h.oneCore.cpuUs} µs and ${h.oneCore.wallUs} µs` : '';
  return `${h.cpuUs} µs of CPU a side and ${h.wallUs} µs a round trip as the scheduler placed them${one}`;
}

const f = (v: number | null | undefined, digits = 2) => (v === null || v === undefined || !Number.isFinite(v) ? '–' : v >= 100 ? v.toFixed(0) : v.toFixed(digits));

/** One condition's run: the floor, the skeleton and the service measured with the machine in that state. */
export interface ConditionRun {
  condition: Condition;
  /** Busy: the spinning child's core (null: not pinned) and the CPU share it got over the condition's run. */
  hog: { core: number | null; cpuShare: number } | null;
  loadAvgStart: number[];
  loadAvgEnd: number[];
  seconds: number;
  floor: Floor | null;
  floorError: string | null;
  skeleton: SkeletonRun;
  service: BadDayRun;
  comparison: RoleComparison[];
  goals: Goal[];
  profiles: Record<string, (ProfileSummary & { role: string })[]>;
}

const loads = (l: number[]) => l.map((v) => v.toFixed(2)).join(' / ');

/** Quiet and busy side by side: every step's figures beside the floor and the skeleton of the same condition. */
function sideBySide(runs: ConditionRun[]): string[] {
  const lines: string[] = [];
  const head = runs.map((r) => `${r.condition}: pairs/s | scan p50 / p99 ms | confirm p50 / p99 ms | CPU ms/pair`).join(' | ');
  lines.push(`| | ${head} |`);
  lines.push(`|---|${runs.map(() => '---|---|---|---|').join('')}`);
  const row = (label: string, cell: (r: ConditionRun) => [string, string, string, string]) => lines.push(`| ${label} | ${runs.map((r) => cell(r).join(' | ')).join(' | ')} |`);
  row('floor (bare PG transaction + bare queue round trip)', (r) => (r.floor ? ['–', `${f(r.floor.reference.p50Ms)} p50`, '–', f(r.floor.reference.cpuPerPairMs)] : ['–', 'not measured', '–', '–']));
  row('skeleton, closed loop, 60 clients', (r) => [f(r.skeleton.pairsPerSecond, 1), `${f(r.skeleton.scan.p50)} / ${f(r.skeleton.scan.p99)}`, '–', f(r.skeleton.cpu.total)]);
  const names = [...new Set(runs.flatMap((r) => r.service.steps.map((x) => x.step)))];
  for (const name of names) {
    row(`service \`${name}\``, (r) => {
      const st = r.service.steps.find((x) => x.step === name);
      if (!st) return ['–', '–', '–', '–'];
      const fiveXx = st.fiveXx ? ` (${st.fiveXx} × 5xx)` : '';
      return [`${f(st.pairsPerSecond, 1)}${fiveXx}`, `${f(st.scan.p50)} / ${f(st.scanP99All)}`, `${f(st.confirm.p50)} / ${f(st.confirm.p99)}`, f(st.budget.cpu.total)];
    });
  }
  lines.push('');
  for (const r of runs) {
    const rounds = r.skeleton.rounds;
    if (rounds) {
      lines.push(
        `- ${r.condition}, the skeleton's closed loop before and after the service: ${rounds.map((x) => `${f(x.pairsPerSecond, 1)} pairs/s at ${f(x.cpuPerPairMs)} ms CPU per pair (load ${f(x.loadAvg1m)})`).join(', then ')}; its figures here and in the goals pool both`,
      );
    }
    const floorRounds = r.floor?.rounds;
    if (floorRounds) {
      lines.push(`- ${r.condition}, the floor before and after the service: ${floorRounds.map((x) => `p50 ${f(x.p50Ms)} ms at ${f(x.cpuPerPairMs)} ms CPU per pair (load ${f(x.loadAvg1m)})`).join(', then ')}; its figures here and in the goals pool both`);
    }
    const up = r.service.startUp;
    if (up) {
      lines.push(
        `- ${r.condition}, the service's first ${up.seconds} s after its start and the upload (the start of its warm-up; in no step): ${up.sorters} sorters, one a wall, ` +
          `${f(up.pairsPerSecond, 1)} pairs/s, scan p50 ${f(up.scan.p50)} / p99 ${f(up.scan.p99)} ms, confirm p50 ${f(up.confirm.p50)} ms, ${up.fiveXx} × 5xx; the hubs' reads p50 ${f(up.reads.p50)} ms`,
      );
    }
    const cold = r.service.steps.find((x) => x.cold)?.cold;
    if (cold) {
      lines.push(
        `- ${r.condition}, \`cold-wall\`: the six connects ${cold.connectMs.map((v) => f(v, 0)).join(', ')} ms; first scans ${cold.firstScanMs.map((v) => f(v, 0)).join(', ')} ms; first confirms ${cold.firstConfirmMs.map((v) => f(v, 0)).join(', ')} ms; ` +
          `${cold.over100} answers over 100 ms, the last ${cold.lastOver100AtMs ?? '–'} ms into the step; scans from the second second on p50 ${f(cold.warmScan.p50)} / p99 ${f(cold.warmScan.p99)} ms`,
      );
    }
    const reads = r.service.steps.find((x) => x.wallReads)?.wallReads;
    if (reads) lines.push(`- ${r.condition}, \`GET /walls/{id}\` p50 / p99, 100 one after the other after \`idle-1-deep\`: ${Object.entries(reads).map(([k, v]) => `${k} ${f(v.p50)} / ${f(v.p99)} ms`).join('; ')}`);
    lines.push(`- ${r.condition}, PostgreSQL sessions opened during each step (new backends): ${r.service.steps.map((x) => `\`${x.step}\` ${x.newSessions}`).join(', ')}`);
    const splits = r.service.steps.filter((x) => x.scanSplit);
    if (splits.length) {
      lines.push(
        `- ${r.condition}, where a scan's time went (means, ms: at the bench / in the API's command client, enqueue to answer / in the sorting worker): ` +
          splits.map((x) => `\`${x.step}\` ${x.scanSplit!.clientMs} / ${x.scanSplit!.commandMs} / ${x.scanSplit!.serviceMs}`).join(', '),
      );
    }
    const woken = (w: RoleCpu) => `${f(w.total, 1)} (${BUDGET_ROLES.map((role) => `${role} ${f(w.perPair[role], 1)}`).join(', ')})`;
    lines.push(
      `- ${r.condition}, wake-ups per pair (the voluntary context switches of every thread of the service's processes, their PostgreSQL backends and Redis: ` +
        `the hops a pair costs, the same on any machine; what one costs is the hop above): the skeleton's closed loop ${woken(r.skeleton.wakeups)}; ` +
        r.service.steps.map((x) => `\`${x.step}\` ${woken(x.wakeups)}`).join('; '),
    );
    const opens = r.service.steps.filter((x) => x.kind === 'open');
    if (opens.length) lines.push(`- ${r.condition}, the open steps' slow answers by when they were sent: ${opens.map((x) => `\`${x.step}\` ${slowWindowsText(x.slowWindows)}`).join('; ')}`);
    const idle = r.service.steps.find((x) => x.step === 'idle-1');
    if (idle) {
      const api = idle.reads.api;
      const during = api ? `; the API's main thread during a read: on a core p50 ${f(api.onCpuP50)} (mean ${f(api.onCpuMean)}) ms, runnable and waiting for a core p50 ${f(api.waitP50)} (mean ${f(api.waitMean)}) ms` : '';
      const floor = idle.reads.floor ? `; a bare PostgreSQL read of a wall's slots at the same cadence from the same process p50 ${f(idle.reads.floor.p50)} / p99 ${f(idle.reads.floor.p99)} ms` : '';
      const answered = idle.reads.answered && idle.reads.answered.memory + idle.reads.answered.database > 0 ? ` (${idle.reads.answered.memory} of ${idle.reads.answered.memory + idle.reads.answered.database} answered from memory: walls unchanged since their last read)` : '';
      lines.push(`- ${r.condition}, the hubs' \`GET /walls/{id}\` every 3 s during \`idle-1\`: p50 ${f(idle.reads.p50)} / p99 ${f(idle.reads.p99)} ms${answered}${during}${floor}; \`/readyz\` p99 ${f(idle.readyz.p99)} ms`);
    }
  }
  return lines;
}

/** The goals of every condition in one table. */
function goalTable(runs: ConditionRun[]): string[] {
  const lines = [`| goal | ${runs.map((r) => `${r.condition} | `).join(' | ')} |`, `|---|${runs.map(() => '---|---|').join('')}`];
  const names = [...new Set(runs.flatMap((r) => r.goals.map((g) => g.goal)))];
  for (const name of names) {
    lines.push(`| ${name} | ${runs.map((r) => { const g = r.goals.find((x) => x.goal === name); return g ? `${g.measured} | ${g.met ? 'MET' : '**MISS**'}` : '– | –'; }).join(' | ')} |`);
  }
  return lines;
}

/** The report as markdown tables (bench/results/budget.md), the form docs/benchmarks.md carries. */
export function budgetMarkdown(at: string, runs: ConditionRun[]): string {
  const lines: string[] = [];
  lines.push(`Run of ${at} on ${os.cpus().length} CPUs. ${runs.map((r) => `${r.condition}${r.hog ? ` (a spinning child ${r.hog.core === null ? 'unpinned' : `on core ${r.hog.core}`}, ${f(100 * r.hog.cpuShare, 0)} % of a core)` : ''}: load average ${loads(r.loadAvgStart)} at its start, ${loads(r.loadAvgEnd)} at its end (1/5/15 min), ${r.seconds} s`).join('; ')}.`);
  const hops = runs.filter((r) => r.floor?.hop);
  if (hops.length) lines.push('', `A hop between two processes (a byte there and back over a Unix socket, bench/lib/hop-cost.ts): ${hops.map((r) => `${r.condition} ${hopLine(r.floor!.hop!)}`).join('; ')}.`);
  lines.push('');
  lines.push(...sideBySide(runs));
  lines.push('');
  lines.push(...goalTable(runs));
  lines.push('');
  for (const r of runs) {
    const closed = r.service.steps.find((x) => x.step === 'closed-60');
    lines.push(`### ${r.condition}`);
    lines.push('');
    lines.push('| CPU ms per pair, closed loop | service | skeleton | service / skeleton | extra |');
    lines.push('|---|---|---|---|---|');
    for (const c of r.comparison) lines.push(`| ${c.role === 'total' ? '**all roles**' : c.role} | ${f(c.service)} | ${f(c.skeleton)} | ${c.ratio === null ? '–' : `${f(c.ratio, 1)}×`} | ${f(c.extra)} |`);
    if (closed) lines.push(`| PostgreSQL by role (service) | ${Object.entries(closed.budget.cpu.postgresByRole).map(([k, v]) => `${k} ${f(v)}`).join(', ')} | | | |`);
    lines.push('');
    const statements = (list: StatementBudget[], n: number) => {
      lines.push('| statement | calls / pair | ms / pair | ms / call | buffers / pair | buffers / call | share of time |');
      lines.push('|---|---|---|---|---|---|---|');
      for (const q of list.slice(0, n)) lines.push(`| ${q.statement.replace(/\|/g, '\\|')} | ${f(q.callsPerPair)} | ${f(q.msPerPair, 3)} | ${f(q.meanMs, 3)} | ${f(q.buffersPerPair, 1)} | ${f(q.buffersPerCall, 1)} | ${f(q.share, 1)} % |`);
      const sum = (k: 'callsPerPair' | 'msPerPair' | 'buffersPerPair') => list.reduce((a, q) => a + q[k], 0);
      lines.push(`| **all ${list.length} listed** | ${f(sum('callsPerPair'))} | ${f(sum('msPerPair'), 3)} | | ${f(sum('buffersPerPair'), 1)} | | |`);
    };
    for (const st of r.service.steps) {
      if (st.step === 'closed-60' || !st.pairs) continue;
      lines.push(`Service \`${st.step}\`, PostgreSQL statements per pair (\`pg_stat_statements\`):`);
      lines.push('');
      statements(st.budget.statements, 8);
      lines.push('');
    }
    if (closed) {
      lines.push('Service `closed-60`, PostgreSQL statements per pair:');
      lines.push('');
      statements(closed.budget.statements, 25);
      lines.push('');
    }
    lines.push('Skeleton, PostgreSQL statements per pair:');
    lines.push('');
    statements(r.skeleton.statements, 5);
    lines.push('');
    const commands = (list: CommandBudget[]) => {
      const t = commandTotals(list);
      return `${f(t.callsPerPair, 1)} calls, ${f(t.usecPerPair / 1000, 3)} ms per pair: ${list.slice(0, 14).map((c) => `${c.command} ${f(c.callsPerPair, 1)}`).join(', ')}`;
    };
    lines.push('Redis commands per pair (`INFO commandstats`):');
    lines.push('');
    if (closed) lines.push(`- service: ${commands(closed.budget.redisCommands)}`);
    lines.push(`- skeleton: ${commands(r.skeleton.redisCommands)}`);
    lines.push('');
    for (const [who, list] of Object.entries(r.profiles)) {
      for (const p of list) {
        lines.push(`CPU profile, ${who} ${p.role}: ${p.busyMs} ms busy of ${p.spanMs} ms; top functions: ${p.byFunction.slice(0, 6).map((x) => `${x.name.replace(/\|/g, '\\|')} ${x.share} %`).join('; ')}`);
        lines.push('');
      }
    }
  }
  return `${lines.join('\n')}\n`;
}

/** Profiles written by processes of `pids` (role → pids), cut to `window`. */
function profilesOf(dir: string, root: string, pids: Record<string, number[]>, window: { fromUs: number; toUs: number }): (ProfileSummary & { role: string })[] {
  const roleOf = new Map<number, string>();
  for (const [role, list] of Object.entries(pids)) for (const pid of list) roleOf.set(pid, role);
  return readdirSync(dir)
    .map((file) => ({ file, role: roleOf.get(Number(file.split('.')[3])), thread: file.split('.')[4] }))
    .filter((x): x is { file: string; role: string; thread: string } => x.file.endsWith('.cpuprofile') && x.thread === '0' && x.role !== undefined)
    .map(({ file, role }) => ({ role, ...summarizeProfile(path.join(dir, file), root, 12, window) }));
}

async function redisVersionPid(url: string): Promise<number | undefined> {
  const redis = createRedis(url);
  try {
    const pid = Number(/process_id:(\d+)/.exec(await redis.info('server'))?.[1]);
    return Number.isInteger(pid) ? pid : undefined;
  } finally {
    redis.disconnect();
  }
}

async function main(): Promise<void> {
  const { s: settings, b } = budgetSettings();
  let own: OwnRedis | undefined;
  if (b.redis === 'own') own = await startOwnRedis();
  const s: BenchSettings = own ? { ...settings, redisUrl: own.url } : settings;
  const redisPid = own?.pid ?? (await redisVersionPid(s.redisUrl));
  const config = loadConfig(serviceEnv(s));
  mkdirSync(s.resultsDir, { recursive: true });
  const profileDir = path.join(s.resultsDir, 'profiles');
  const nodeArgs: string[] = [];
  if (s.cpuProf) {
    rmSync(profileDir, { recursive: true, force: true });
    mkdirSync(profileDir, { recursive: true });
    nodeArgs.push('--cpu-prof', '--cpu-prof-dir', profileDir);
  }
  const started = Date.now();
  const load0 = os.loadavg();
  say(`[setup] ${b.quick ? 'quick run' : 'run'}: ${b.conditions.join(' then ')}; ${s.seconds} s per step, service steps ${b.steps.join(', ')}; Redis ${own ? `of the bench's own (${own.url})` : s.redisUrl}; load average ${loads(load0)} on ${os.cpus().length} CPUs`);
  if (load0[0]! > os.cpus().length * 0.5) say(`[setup] the machine is busy: throughput and latency figures will be low; CPU per pair and the service/skeleton ratios are the fairer comparison`);
  try {
    if (s.runtime === 'node') {
      say('[setup] building the services with tsc into bench/results/dist, as npm start does');
      const warning = buildServices(s.root, s.resultsDir);
      if (warning) say(`[setup] ${warning}`);
    }
    const runs: ConditionRun[] = [];
    for (const condition of b.conditions) {
      const t0 = Date.now();
      const loadAvgStart = os.loadavg();
      const hog = condition === 'busy' ? startCpuHog() : null;
      const hogCpu0 = hog ? cpuMs(hog.pid) : undefined;
      if (hog) say(`\n[busy] a spinning child (pid ${hog.pid}) ${hog.core === null ? 'unpinned (no taskset)' : `pinned to core ${hog.core}`} beside everything below`);
      else say(`\n[quiet] the machine as it is (load average ${loads(loadAvgStart)})`);
      try {
        const floorRun = await measureFloor(s, redisPid);
        let floor = 'error' in floorRun ? null : floorRun.floor;

        say(`\n[${condition} skeleton] Express → BullMQ queue per partition (8) → worker, concurrency 1 → one PostgreSQL statement → Redis PUBLISH → answer`);
        const skeletonBefore = await runSkeleton(s, { redisPid, nodeArgs, say });

        say(`\n[${condition} service] npm start on the bad day's floor (statistics ${s.badDayStatistics[0]}), steps ${b.steps.join(', ')}`);
        const reference: FloorReference = floor?.reference ?? { p50Ms: NaN, cpuPerPairMs: NaN };
        const service = await runBadDayOnce(s, config, s.badDayStatistics[0]!, { redisPid, say, floor: reference, nodeArgs: [...nodeArgs, ...serviceNodeArgs()], warmUpSeconds: s.warmupSeconds });
        // The skeleton again, after the service: the ratios pool both runs (pooledSkeleton).
        let skeleton = skeletonBefore;
        if (b.skeletonAfter) {
          say(`\n[${condition} skeleton, after the service] the same closed loop again`);
          skeleton = pooledSkeleton([skeletonBefore, await runSkeleton(s, { redisPid, nodeArgs, say })]);
          say(`[${condition} skeleton] pooled: ${skeleton.pairsPerSecond} pairs/s, ${skeleton.cpu.total} ms CPU per pair (before the service ${skeletonBefore.pairsPerSecond} pairs/s at ${skeletonBefore.cpu.total} ms)`);
          // And the floor again: the goals pool both (pooledFloor).
          if (!('error' in floorRun)) {
            say(`\n[${condition} floor, after the service] the same bare transactions and round trips again`);
            const after = await measureFloor(s, redisPid, false);
            if (!('error' in after)) {
              floor = pooledFloor([floorRun, after]);
              say(`[${condition} floor] pooled: p50 ${floor.reference.p50Ms} ms, ${floor.reference.cpuPerPairMs} ms CPU per pair (before the service ${floorRun.floor.reference.p50Ms} ms)`);
            }
          }
        }
        const closed = service.steps.find((x) => x.step === 'closed-60');
        const comparison = closed ? compareRoles(closed.budget.cpu, skeleton.cpu) : [];
        const profiles: Record<string, (ProfileSummary & { role: string })[]> = {};
        if (s.cpuProf) {
          profiles.skeleton = profilesOf(profileDir, s.root, { api: [skeleton.pids.api], sorting: [skeleton.pids.sorting] }, skeleton.window);
          // Every step of the service, each cut to its own window (the idle steps' fixed costs, the hubs'
          // reads and the probes, show there; the closed loop hides them). The supervisor only waits for
          // its children: its profile is empty.
          const roles = { api: service.pids.api ?? [], sorting: service.pids.sorting ?? [], pipeline: service.pids.pipeline ?? [] };
          for (const st of service.steps) profiles[`service ${st.step}`] = profilesOf(profileDir, s.root, roles, st.window);
        }
        const seconds = Math.round((Date.now() - t0) / 1000);
        const hogShare = hog ? ((cpuMs(hog.pid) ?? NaN) - (hogCpu0 ?? NaN)) / (Date.now() - t0) : NaN;
        runs.push({
          condition,
          hog: hog ? { core: hog.core, cpuShare: Math.round(hogShare * 100) / 100 } : null,
          loadAvgStart,
          loadAvgEnd: os.loadavg(),
          seconds,
          floor,
          floorError: 'error' in floorRun ? floorRun.error : null,
          skeleton,
          service,
          comparison,
          goals: goals(condition, skeleton, service.steps, floor, comparison),
          profiles,
        });
      } finally {
        hog?.stop();
      }
    }

    // The report.
    console.log(`\n=== Floor, skeleton and service, ${b.conditions.join(' and ')}, same machine, one after the other (${Math.round((Date.now() - started) / 1000)} s) ===`);
    for (const r of runs) {
      const closed = r.service.steps.find((x) => x.step === 'closed-60');
      console.log(`\n--- ${r.condition}${r.hog ? ` (spinning child ${r.hog.core === null ? 'unpinned' : `on core ${r.hog.core}`}: ${f(100 * r.hog.cpuShare, 0)} % of a core)` : ''}: load average ${loads(r.loadAvgStart)} at its start, ${loads(r.loadAvgEnd)} at its end (1/5/15 min), ${os.cpus().length} CPUs`);
      if (r.floor) console.log(`floor: PG p50 ${f(r.floor.pgP50)} + queue p50 ${f(r.floor.queueP50)} = ${f(r.floor.reference.p50Ms)} ms; ${f(r.floor.reference.cpuPerPairMs)} ms CPU per pair`);
      else console.log(`floor: not measured (${r.floorError})`);
      console.log(`skeleton closed-60: ${f(r.skeleton.pairsPerSecond, 1)} pairs/s, scan p50 ${f(r.skeleton.scan.p50)} p99 ${f(r.skeleton.scan.p99)} ms, ${r.skeleton.errors} errors, ${f(r.skeleton.wakeups.total, 1)} wake-ups/pair, load ${f(r.skeleton.loadAvg1m)}`);
      for (const st of r.service.steps) {
        console.log(`service ${st.step.padEnd(12)} ${f(st.pairsPerSecond, 1)} pairs/s, scan p50 ${f(st.scan.p50)} p99* ${f(st.scanP99All)} ms, confirm p50 ${f(st.confirm.p50)} p99 ${f(st.confirm.p99)} ms, ${st.fiveXx} × 5xx, reads p50 ${f(st.reads.p50)} ms, /readyz p99 ${f(st.readyz.p99)} ms, CPU ${f(st.budget.cpu.total)} ms/pair, ${f(st.wakeups.total, 1)} wake-ups/pair, ${st.newSessions} new PostgreSQL sessions, load ${f(st.loadAvg1m)}`);
      }
      if (closed) {
        console.log(`\nCPU ms per pair, closed loop (service ${closed.pairs} pairs, skeleton ${r.skeleton.pairs}):`);
        console.log(`  ${'role'.padEnd(10)}${'service'.padStart(9)}${'skeleton'.padStart(10)}${'ratio'.padStart(8)}${'extra'.padStart(8)}`);
        for (const c of r.comparison) console.log(`  ${c.role.padEnd(10)}${f(c.service).padStart(9)}${f(c.skeleton).padStart(10)}${(c.ratio === null ? '–' : `${f(c.ratio, 1)}×`).padStart(8)}${f(c.extra).padStart(8)}`);
        console.log(`  PostgreSQL by role (service): ${Object.entries(closed.budget.cpu.postgresByRole).map(([k, v]) => `${k} ${f(v)}`).join(' · ')}`);
      }
      for (const st of r.service.steps) {
        if (!st.pairs) continue;
        console.log(`PostgreSQL statements per pair, service ${st.step}:`);
        for (const q of st.budget.statements.slice(0, st.step === 'closed-60' ? 25 : 8)) console.log(`  ${q.statement.padEnd(44).slice(0, 44)} ${f(q.callsPerPair).padStart(6)} calls ${f(q.msPerPair, 3).padStart(7)} ms ${f(q.meanMs, 3).padStart(7)} ms/call ${f(q.buffersPerPair, 1).padStart(7)} buffers (${f(q.buffersPerCall, 1)}/call) ${f(q.share, 1).padStart(5)} %`);
      }
      console.log('PostgreSQL statements per pair, skeleton:');
      for (const q of r.skeleton.statements.slice(0, 5)) console.log(`  ${q.statement.padEnd(44).slice(0, 44)} ${f(q.callsPerPair).padStart(6)} calls ${f(q.msPerPair, 3).padStart(7)} ms ${f(q.meanMs, 3).padStart(7)} ms/call ${f(q.buffersPerPair, 1).padStart(7)} buffers (${f(q.buffersPerCall, 1)}/call)`);
      if (closed) {
        for (const [who, list] of [['service', closed.budget.redisCommands], ['skeleton', r.skeleton.redisCommands]] as const) {
          const t = commandTotals(list);
          console.log(`Redis per pair, ${who}: ${f(t.callsPerPair, 1)} commands, ${f(t.usecPerPair, 0)} µs · ${list.slice(0, 14).map((c) => `${c.command} ${f(c.callsPerPair, 1)}`).join(' · ')}`);
        }
      }
      for (const [who, list] of Object.entries(r.profiles)) for (const p of list) printProfile(p, `CPU profile, ${r.condition}, ${who} ${p.role}, measured step only`);
    }
    console.log('\n=== Side by side ===');
    for (const line of sideBySide(runs)) console.log(line);
    console.log('\nGoals (beside the skeleton and the floor of the same condition):');
    for (const r of runs) for (const g of r.goals) console.log(`  ${r.condition.padEnd(6)}${g.met ? 'MET ' : 'MISS'}  ${g.goal}: ${g.measured}`);

    const at = new Date().toISOString();
    writeFileSync(path.join(s.resultsDir, 'budget.json'), `${JSON.stringify({ at, loadAvgAtStart: load0, loadAvg: os.loadavg(), conditions: runs, settings: { ...b, seconds: s.seconds, statistics: s.badDayStatistics[0], runtime: s.runtime } }, null, 2)}\n`);
    writeFileSync(path.join(s.resultsDir, 'budget.md'), budgetMarkdown(at, runs));
    say(`\nresults in bench/results/budget.json, the tables for docs/benchmarks.md in bench/results/budget.md (${Math.round((Date.now() - started) / 1000)} s in all)`);
  } finally {
    own?.stop();
  }
}

if (require.main === module) {
  main().then(
    () => process.exit(0),
    (err) => {
      console.error(`\nbench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      process.exit(1);
    },
  );
}
