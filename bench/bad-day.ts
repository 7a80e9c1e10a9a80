import { readFileSync, readdirSync } from 'node:fs';
import os from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import path from 'node:path';
import { Client as PgClient } from 'pg';
import type { AppConfig } from '../shared/config/config';
import { serviceEnv, withDatabase, type BenchSettings } from './bench-settings';
import { recreateDatabase, resetRedis } from './bench-seed';
import { addHistory, BAD_DAY_SLOTS, DEEP_SLOTS, DEEP_UNITS, holdStatistics, seedBadDay, uploadBacklog, type BadDaySeed } from './bad-day-seed';
import { CpuMeter, serviceRoleOfBackend } from './cpu-usage';
import { BenchHttp, RecordingHttp, type HttpAnswer, type HttpClient, type RecordedAnswer, type RequestOptions } from './http-client';
import { bytesPerPair, StatementStats, tableSizes, type ExplainFigure, type StatementFigure } from './lib/pg-insight';
import { explainScanRead } from './lib/pg-floor';
import { commandWorkersListening } from './queue-probe';
import { HubListeners } from './lib/hub-listeners';
import { ProbeProcess } from './lib/probe-process';
import { connectSession, prepareFloor, probePair, realisticClosed, realisticOpen, scansNotSent, signIn, type Actor, type RealisticFloor, type RealisticStep } from './realistic-load';
import { ServiceProcess, pollUntil } from './service-processes';
import { entry } from './realistic';
import { processesByRole } from './service-roles';
import { summarize, type LatencySummary } from './stats';
import { monotonicUs } from './cpu-profile';
import { metricSample } from './lib/metrics-text';
import { RedisCommandMeter } from './lib/redis-commands';
import { commandsPerPair, rolesPerPair, statementsPerPair, type CommandBudget, type RoleCpu, type StatementBudget } from './lib/budget';

/*
 * The bad-day scenario (docs/benchmarks.md): a shift starts right after a morning upload. Few SKUs over
 * many orders and warehouses (10 walls × 6 sorters, 24 slots, one warehouse per wall), orders of two
 * lines of 5 units uploaded through PUT /admin/orders and scanned at once, without ANALYZE; a hub per
 * wall reading GET /walls/{id} every 3 s and following a WebSocket; shippers releasing completed slots;
 * /readyz probed on fresh connections throughout. Steps: one sorter, one sorter on the deep wall (40
 * slots, one SKU, 100 units an order, fresh connections), six sorters on the cold wall (its first
 * commands), six on one wall, open loops up to an overload (how soon the service is back to normal when
 * it drops), a closed loop. Everything beside the floor of the same run.
 */

const HUB_POLL_MS = 3000;
const READYZ_EVERY_MS = 250;
/** After an open step: pairs of the probe sorter until this many in a row are normal again, at most RECOVERY_MAX_MS. */
const NORMAL_IN_A_ROW = 3;
const RECOVERY_MAX_MS = 30_000;

export interface FloorReference {
  /** Bare PG transaction p50 + bare queue round trip p50, ms. */
  p50Ms: number;
  /** Two of each, client side included, CPU ms. */
  cpuPerPairMs: number;
}

interface Probe {
  at: number;
  ms: number;
  status: number;
}

/** A hub's read with what the API's main thread did meanwhile (its /proc schedstat), ms. */
interface ReadProbe extends Probe {
  /** On a core (the read's own work and whatever else its event loop ran meanwhile); null: no single API process. */
  apiOnCpuMs: number | null;
  /** Runnable, waiting for a core. */
  apiWaitMs: number | null;
}

interface PipelineBacklog {
  unrelayed: number;
  unconsumed: number;
}

async function pipelineBacklog(pg: PgClient): Promise<PipelineBacklog> {
  const { rows } = await pg.query<PipelineBacklog>(`/* bench_probe */
select (select count(*)::int from outbox_event where id > (select through from outbox_horizon)) as unrelayed,
       (select count(*)::int from outbox_event where id > (select coalesce(min(position), 0) from outbox_consumer) and id <= (select through from outbox_horizon)) as unconsumed`);
  return rows[0]!;
}

/** Sessions ever opened on the connected database (the statistics collector's count, PostgreSQL 14 and later). */
async function sessionsOpened(pg: PgClient): Promise<number> {
  const { rows } = await pg.query<{ sessions: string }>(`/* bench_probe */ select sessions from pg_stat_database where datname = current_database()`);
  return Number(rows[0]?.sessions ?? NaN);
}

export interface BadDayStep extends RealisticStep {
  kind: 'closed' | 'open';
  sorters: number;
  loadAvg1m: number;
  /**
   * Events the pipeline had yet to handle when the step began and when it ended (committed and not yet
   * relayed; relayed and not yet passed by the slowest consumer): about equal, its CPU in the step is its
   * steady cost; growing, the pipeline fell behind and its CPU per pair reads low.
   */
  pipelineBacklog: { start: PipelineBacklog; end: PipelineBacklog };
  /** Every request of the sorters and shippers, from its own send: how many, the slowest, how many within 1 s, how many unanswered. */
  every: { n: number; maxMs: number; within1s: number; noAnswer: number; status503: number };
  /** Scans not sent because a wall's tote ran out: the step offered less than its sorters or its rate say. */
  scansNotSent: number;
  /**
   * The answers over 1 s (or none), where they come from: by request and status; by the second of the
   * step they were sent in; and the commands the API's command client held over 1 s (and over 0.5 s),
   * from admission to the worker's answer (its command_duration_seconds, by command and outcome). An
   * answer over 1 s whose command was not held that long spent its time outside: the accept queue, the
   * API's event loop, its HTTP work.
   */
  slow: SlowAnswers;
  /**
   * The hubs' GET /walls/{id} during the step; `api`: what the API's main thread did during each read
   * (its /proc schedstat read just before the send and just after the answer; with one API process
   * only): p50 and mean of its time on a core and of its time runnable, waiting for one.
   */
  reads: LatencySummary & {
    failed: number;
    api: { onCpuP50: number; onCpuMean: number; waitP50: number; waitMean: number } | null;
    /** A bare PostgreSQL read at the same cadence from the same process (the hubs' reads' floor), answered ones. */
    floor: LatencySummary;
    /** The API's reads of walls during the step by where they were answered from (its `wall_view_reads_total`), or null. */
    answered?: { memory: number; database: number } | null;
  };
  /** /readyz on fresh connections during the step. */
  readyz: LatencySummary & { notReady: number };
  /** /healthz (answered from memory) on fresh connections: the connection path and the API's event loop alone. */
  healthz: LatencySummary;
  /** /readyz on the health listener (HEALTH_PORT), fresh connections: no queue of client connections ahead of it. */
  readyzHealthPort: LatencySummary & { notReady: number };
  /** The bench's own event-loop delay over the step, ms: when it is large, the client measured itself. */
  benchEventLoopLagMs: { p99: number; max: number };
  /** The API's event-loop delay over the step (its /metrics, read at the step's start and end), ms. */
  apiEventLoopLagMs: { p99: number; max: number } | null;
  /** Per process role; PostgreSQL per role of its backends (`postgres:api`, `postgres:sorting`, `postgres:pipeline`, `postgres:other`: the bench's own). */
  cpuMs: Record<string, number>;
  /** As cpuMs, per pair, plus `postgres`: the service's backends together (not `other`). */
  cpuPerPairMs: Record<string, number>;
  /** API + sorting + their own PostgreSQL backends + Redis, per pair. */
  commandPathCpuPerPairMs: number;
  serviceCpuPerPairMs: number;
  /**
   * Wake-ups per pair by budget role (each process's threads' voluntary context switches, bench/cpu-usage.ts):
   * the hops a pair costs, which a slower machine's wake-ups multiply whatever its CPU figures say.
   */
  wakeups: RoleCpu;
  bytesPerPair: Record<string, number>;
  statements: StatementFigure[];
  /** The per-pair budget (bench/lib/budget.ts): CPU by role, every statement and every Redis command per pair. */
  budget: { cpu: RoleCpu; statements: StatementBudget[]; redisCommands: CommandBudget[] };
  /** The step on the monotonic clock (µs), to cut CPU profiles. */
  window: { fromUs: number; toUs: number };
  /** PostgreSQL sessions opened on the step's database during the step (pg_stat_database.sessions): new backends, each planning its statements afresh. */
  newSessions: number;
  /**
   * Where a scan's time went, means over the step: at the bench (send to answer), in the API's command
   * client (`item.scan` answered ok: enqueue to answer, command_duration_seconds) and in the sorting
   * worker (every command: hand-over to answer, command_service_seconds). The bench's less the command
   * client's is the connection, the HTTP work, sign-in checks and validation; the command client's less
   * the worker's is the queue's hops (Redis, the fetch, the reply). Null without the API's /metrics.
   */
  scanSplit: { clientMs: number; commandMs: number; serviceMs: number } | null;
  /**
   * The commands answered over SLOW_ANSWER_MS (an open step's goal for its p99 quiet), by when they were
   * sent: a few 100-ms windows holding most of them is a stall of the whole command path (a collection,
   * a backend planning afresh, both cores taken at once); spread over the step, it is the wait for a core.
   */
  slowWindows: SlowWindows;
  /** `cold-wall`: the wall's first commands (docs/benchmarks.md, "The cold wall"). */
  cold?: ColdFigures;
  /** `idle-1-deep`: GET /walls/{id} one after the other after the step, on the deep wall (fresh connections and kept alive) and on a 24-slot wall. */
  wallReads?: Record<string, LatencySummary>;
  /**
   * Open steps: when the offered load stopped, how long until the probe sorter's pairs were normal again
   * (null: not within 30 s, or `unitsRanOut`: the probing sorter's wall had no unit left to probe with).
   */
  recovery?: { backToNormalMs: number | null; normalScanMs: number; probes: { atMs: number; scanMs: number; ok: boolean }[]; unitsRanOut?: boolean };
}

export interface BadDayRun {
  statistics: 'fresh' | 'analyzed';
  upload: { ms: number; orders: number; calls: number; analyzeMs: number | null };
  processes: Record<string, number>;
  statementStats: string;
  explain: { afterUpload: ExplainFigure[]; atEnd: ExplainFigure[] } | null;
  /**
   * The service's first seconds after its start and the upload, before the steps (BENCH_WARMUP_SECONDS,
   * as the skeleton's warm-up): one sorter on each wall but idle-1's, the deep and the cold wall, closed
   * loop. Not in any step; null when the warm-up is 0 s.
   */
  startUp: { seconds: number; sorters: number; pairsPerSecond: number; scan: LatencySummary; confirm: LatencySummary; fiveXx: number; reads: LatencySummary } | null;
  steps: BadDayStep[];
  wsEvents: number;
  /** The service's processes by role (pids), for the CPU profiles. */
  pids: Record<string, number[]>;
}

/** The Mosquitto broker's pid, when one runs on this machine (its CPU is counted when present). */
function mosquittoPid(): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'mosquitto') return Number(entry);
    } catch {
      // gone
    }
  }
  return undefined;
}

/**
 * The hubs' reads and the load balancer's /readyz probes, running beside every step, sent from a
 * process of their own (bench/lib/probe-process.ts): a hub or a balancer does not wait for the event
 * loop that makes the floor's load.
 */
class Probes {
  readonly reads: ReadProbe[] = [];
  /** The bare PostgreSQL read at the hubs' cadence (bench/lib/probe-process.ts, `floorRead`). */
  readonly floorReads: Probe[] = [];
  /** The API process whose main thread each read's schedstat figures follow (set when there is exactly one). */
  apiPid: number | undefined;
  readonly readyz: Probe[] = [];
  readonly healthz: Probe[] = [];
  /** /readyz on the health listener (HEALTH_PORT). */
  readonly healthPort: Probe[] = [];
  private process: ProbeProcess | undefined;

  constructor(private readonly target: { host: string; port: number; healthPort: number }) {}

  start(auth: string, wallIds: number[], databaseUrl: string): void {
    // The floor reads a wall's slots, the bulk of the hubs' read, with a statement prepared once.
    const floorRead = { databaseUrl, pg: require.resolve('pg'), text: 'select * from sort_box where wall_id = $1 order by position /* bench_probe: the hubs\' reads\' floor */', values: [wallIds[0]] };
    this.process = new ProbeProcess(
      { ...this.target, auth, wallIds, readEveryMs: HUB_POLL_MS, probeEveryMs: READYZ_EVERY_MS, apiPid: this.apiPid, floorRead },
      (sample) => {
        const probe = { at: sample.at, ms: sample.ms, status: sample.status };
        if (sample.kind === 'read') this.reads.push({ ...probe, apiOnCpuMs: sample.apiOnCpuMs ?? null, apiWaitMs: sample.apiWaitMs ?? null });
        else if (sample.kind === 'floor') this.floorReads.push(probe);
        else if (sample.kind === 'readyz') this.readyz.push(probe);
        else if (sample.kind === 'healthz') this.healthz.push(probe);
        else this.healthPort.push(probe);
      },
    );
  }

  async stop(): Promise<void> {
    await this.process?.stop();
  }

  static window<P extends Probe>(probes: P[], from: number, to: number): P[] {
    return probes.filter((p) => p.at >= from && p.at <= to);
  }
}

export interface SlowAnswers {
  /** `scan 200`, `confirm 503`, … : how many answers over 1 s or none. */
  byRequest: Record<string, number>;
  /** How many were sent in each second of the step (0: the first). */
  bySecond: number[];
  /** Commands held over 1 s by the API's command client, by `command outcome`; over 0.5 s likewise. */
  heldOver1s: Record<string, number>;
  heldOver500ms: Record<string, number>;
  /** The admission policy's 503s in the step, by reason (command_admission_refusals_total). */
  refusals: Record<string, number>;
}

/** What kind of request: the command behind a path. */
function requestKind(r: { method: string; path: string }): string {
  if (isScan(r)) return 'scan';
  if (isConfirm(r)) return 'confirm';
  if (r.path.endsWith('/release')) return 'release';
  if (r.method === 'POST' && r.path.endsWith('/sessions')) return 'connect';
  return `${r.method} ${r.path.replace(/\/\d+|\/[0-9a-f-]{36}/g, '/{id}')}`;
}

/** The command client's latency histogram (command_duration_seconds) in a /metrics text: count per `command outcome` above and at each bound. */
function commandHeld(metrics: string | null): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>();
  for (const m of (metrics ?? '').matchAll(/^command_duration_seconds_bucket\{([^}]*)\} (\S+)$/gm)) {
    const labels = Object.fromEntries([...m[1]!.matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1]!, l[2]!]));
    const key = `${labels.command} ${labels.outcome}`;
    const buckets = out.get(key) ?? new Map<string, number>();
    buckets.set(labels.le!, Number(m[2]));
    out.set(key, buckets);
  }
  return out;
}

function slowAnswers(answers: RecordedAnswer[], from: number, before: string | null, after: string | null): SlowAnswers {
  const slow = answers.filter((a) => a.status === 0 || a.ms > 1000);
  const byRequest: Record<string, number> = {};
  const bySecond: number[] = [];
  for (const a of slow) {
    const key = `${requestKind(a)} ${a.status || 'none'}`;
    byRequest[key] = (byRequest[key] ?? 0) + 1;
    const second = Math.max(0, Math.floor((a.at - from) / 1000));
    while (bySecond.length <= second) bySecond.push(0);
    bySecond[second]!++;
  }
  const [b, e] = [commandHeld(before), commandHeld(after)];
  const held = (le: string): Record<string, number> => {
    const out: Record<string, number> = {};
    for (const [key, buckets] of e) {
      const count = (m: Map<string, number> | undefined) => (m?.get('+Inf') ?? 0) - (m?.get(le) ?? 0);
      const n = count(buckets) - count(b.get(key));
      if (n > 0) out[key] = n;
    }
    return out;
  };
  const refusals: Record<string, number> = {};
  const refused = (metrics: string | null, reason: string) => metricSample(metrics ?? '', `command_admission_refusals_total{reason="${reason}"}`) ?? 0;
  for (const reason of ['wait', 'late', 'loop', 'ceiling']) {
    const n = refused(after, reason) - refused(before, reason);
    if (n > 0) refusals[reason] = n;
  }
  return { byRequest, bySecond, heldOver1s: held('1'), heldOver500ms: held('0.5'), refusals };
}

/** Answers over this are counted by when they were sent (BadDayStep.slowWindows). */
const SLOW_ANSWER_MS = 25;

export interface SlowWindows {
  overMs: number;
  /** Commands (scans and confirms) answered over `overMs`, of `of`. */
  over: number;
  of: number;
  /** The step's 100-ms windows (start in seconds into the step) holding the most of them, at most three. */
  windows: { atS: number; n: number }[];
}

/** BadDayStep.slowWindows of the step's answers (`at`: when sent, on the clock of `from`). */
export function slowWindows(answers: { at: number; ms: number }[], from: number, overMs = SLOW_ANSWER_MS, windowMs = 100): SlowWindows {
  const over = answers.filter((a) => a.ms > overMs);
  const byWindow = new Map<number, number>();
  for (const a of over) {
    const w = Math.max(0, Math.floor((a.at - from) / windowMs));
    byWindow.set(w, (byWindow.get(w) ?? 0) + 1);
  }
  const windows = [...byWindow]
    .sort((a, b) => b[1] - a[1] || a[0] - b[0])
    .slice(0, 3)
    .map(([w, n]) => ({ atS: round2((w * windowMs) / 1000), n }));
  return { overMs, over: over.length, of: answers.length, windows };
}

function everyAnswer(answers: { ms: number; status: number }[]): BadDayStep['every'] {
  return {
    n: answers.length,
    maxMs: Math.round(Math.max(0, ...answers.map((a) => a.ms))),
    within1s: answers.filter((a) => a.status !== 0 && a.ms <= 1000).length,
    noAnswer: answers.filter((a) => a.status === 0).length,
    status503: answers.filter((a) => a.status === 503).length,
  };
}

const round2 = (v: number) => Math.round(v * 100) / 100;

/** The API main thread's time on a core and waiting for one during the answered reads (ms), or null. */
function apiDuringReads(reads: ReadProbe[]): BadDayStep['reads']['api'] {
  const ok = reads.filter((p) => p.status === 200 && p.apiOnCpuMs !== null && p.apiWaitMs !== null);
  if (!ok.length) return null;
  const onCpu = summarize(ok.map((p) => p.apiOnCpuMs!));
  const wait = summarize(ok.map((p) => p.apiWaitMs!));
  return { onCpuP50: onCpu.p50, onCpuMean: onCpu.mean, waitP50: wait.p50, waitMean: wait.mean };
}

/** The API's /metrics text, or null. */
async function apiMetrics(http: BenchHttp): Promise<string | null> {
  const res = await http.request('GET', '/metrics', { timeoutMs: 10_000 });
  return res.status === 200 && typeof res.body === 'string' ? res.body : null;
}

/** The API's GET /walls/{id} answered from memory and from PostgreSQL between two reads of its /metrics, or null. */
function wallViewReads(before: string | null, after: string | null): { memory: number; database: number } | null {
  if (before === null || after === null) return null;
  const read = (metrics: string, answered: string) => metricSample(metrics, `wall_view_reads_total{answered="${answered}"}`) ?? NaN;
  const memory = read(after, 'memory') - read(before, 'memory');
  const database = read(after, 'database') - read(before, 'database');
  return Number.isFinite(memory) && Number.isFinite(database) ? { memory, database } : null;
}

/** BadDayStep.scanSplit from the step's mean scan and the API's /metrics before and after it. */
function scanSplit(clientMs: number, before: string | null, after: string | null): BadDayStep['scanSplit'] {
  if (before === null || after === null) return null;
  const mean = (name: string, labels = '') => {
    const delta = (part: string) => (metricSample(after, `${name}_${part}${labels}`) ?? NaN) - (metricSample(before, `${name}_${part}${labels}`) ?? 0);
    return round2((delta('sum') / delta('count')) * 1000);
  };
  const split = { clientMs, commandMs: mean('command_duration_seconds', '{command="item.scan",outcome="ok"}'), serviceMs: mean('command_service_seconds') };
  return Object.values(split).every(Number.isFinite) ? split : null;
}

/** The API's event-loop delay since the last read of its /metrics (prom-client resets it on each read), ms. */
function eventLoopLag(metrics: string | null): { p99: number; max: number } | null {
  if (metrics === null) return null;
  const read = (name: string) => (metricSample(metrics, name) ?? NaN) * 1000;
  return { p99: round2(read('nodejs_eventloop_lag_p99_seconds')), max: round2(read('nodejs_eventloop_lag_max_seconds')) };
}

/** Every request sent through it, with its send time (performance.now()), latency, status, method and path. */
class TimedHttp implements HttpClient {
  readonly records: { at: number; ms: number; status: number; method: string; path: string }[] = [];

  constructor(private readonly inner: HttpClient) {}

  async request(method: string, path: string, opts?: RequestOptions): Promise<HttpAnswer> {
    const at = performance.now();
    const answer = await this.inner.request(method, path, opts);
    this.records.push({ at, ms: performance.now() - at, status: answer.status, method, path });
    return answer;
  }
}

export interface ColdFigures {
  /** Each sorter's session connect (the wall's very first commands, six at once), ms. */
  connectMs: number[];
  /** Each sorter's first scan and first confirm, ms. */
  firstScanMs: number[];
  firstConfirmMs: number[];
  /** Answers over 100 ms, and when the last of them came, ms from the step's start. */
  over100: number;
  lastOver100AtMs: number | null;
  /** Scans answered from the step's second second on: the same wall warm. */
  warmScan: LatencySummary;
}

const isScan = (r: { method: string; path: string }) => r.method === 'POST' && r.path === '/api/v1/sort-box-items';
const isConfirm = (r: { method: string; path: string }) => r.method === 'PATCH' && r.path.endsWith('/confirm');

/**
 * The cold wall: its sorters (signed in, not yet connected) connect at once, then each scans and
 * confirms one pair after another until the step ends, every request on a fresh connection.
 */
async function coldWall(http: HttpClient, floor: RealisticFloor, wallIndex: number, actors: Actor[], durationMs: number, label: string): Promise<RealisticStep & { cold: ColdFigures }> {
  const wallId = floor.seed.walls[wallIndex]!.id;
  const start = performance.now();
  const per = actors.map(() => new TimedHttp(http));
  const runs = await Promise.all(
    actors.map(async (a, i) => {
      // Every answer counts, a 503 too; the sorter connects again until it is in.
      a.sessionToken = await connectSession(per[i]!, wallId, a.auth);
      return realisticClosed(per[i]!, floor, Math.max(0, durationMs - (performance.now() - start)), `${label} #${i + 1}`, { sorters: [a] });
    }),
  );
  const all = per.flatMap((p) => p.records);
  const ok = (r: { status: number }) => r.status === 200;
  const seconds = (Math.max(...all.map((r) => r.at + r.ms), start + durationMs) - start) / 1000;
  const pairs = runs.reduce((a, r) => a + r.pairs, 0);
  const errors: Record<string, number> = {};
  for (const r of runs) for (const [k, v] of Object.entries(r.errors)) errors[k] = (errors[k] ?? 0) + v;
  const over = all.filter((r) => r.ms > 100);
  return {
    step: label,
    offeredRate: null,
    seconds: round2(seconds),
    pairs,
    pairsPerSecond: Math.round((pairs / seconds) * 10) / 10,
    scan: summarize(all.filter((r) => isScan(r) && ok(r)).map((r) => r.ms)),
    scanP99All: summarize(all.filter(isScan).map((r) => r.ms)).p99,
    confirm: summarize(all.filter((r) => isConfirm(r) && ok(r)).map((r) => r.ms)),
    release: summarize(all.filter((r) => r.path.endsWith('/release') && ok(r)).map((r) => r.ms)),
    errors,
    fiveXx: runs.reduce((a, r) => a + r.fiveXx, 0),
    cold: {
      connectMs: per.map((p) => round2(p.records[0]?.ms ?? NaN)),
      firstScanMs: per.map((p) => round2(p.records.find(isScan)?.ms ?? NaN)),
      firstConfirmMs: per.map((p) => round2(p.records.find(isConfirm)?.ms ?? NaN)),
      over100: over.length,
      lastOver100AtMs: over.length ? Math.round(Math.max(...over.map((r) => r.at + r.ms)) - start) : null,
      warmScan: summarize(all.filter((r) => isScan(r) && ok(r) && r.at - start >= 1000).map((r) => r.ms)),
    },
  };
}

/** `n` reads of a wall's view, one after the other. */
async function readWall(http: HttpClient, auth: string, wallId: number, n: number): Promise<LatencySummary> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const res = await http.request('GET', `/api/v1/walls/${wallId}`, { auth, timeoutMs: 15_000 });
    if (res.status === 200) ms.push(performance.now() - t0);
  }
  return summarize(ms);
}

/** Signs the named sorters in; `connect`: and connects each to the wall. */
async function signInActors(http: HttpClient, emails: string[], wallIndex: number, wallId: number, connect: boolean): Promise<Actor[]> {
  return Promise.all(
    emails.map(async (email) => {
      const t = await signIn(http, email);
      if (!t.auth) throw new Error(`sign-in of ${email} failed: ${t.status} ${t.code}`);
      const actor: Actor = { auth: t.auth, wallIndex };
      if (connect) actor.sessionToken = await connectSession(http, wallId, t.auth);
      return actor;
    }),
  );
}

export async function runBadDay(
  s: BenchSettings,
  config: AppConfig,
  opts: { redisPid: number | undefined; say: (line: string) => void; floor: FloorReference; nodeArgs: string[] },
): Promise<BadDayRun[]> {
  const runs: BadDayRun[] = [];
  for (const statistics of s.badDayStatistics) runs.push(await runBadDayOnce(s, config, statistics, opts));
  return runs;
}

export async function runBadDayOnce(
  base: BenchSettings,
  config: AppConfig,
  statistics: 'fresh' | 'analyzed',
  opts: {
    redisPid: number | undefined;
    say: (line: string) => void;
    floor: FloorReference;
    nodeArgs: string[];
    /**
     * Seconds of unmeasured warm-up before the steps (`npm run bench`: BENCH_WARMUP_SECONDS, as its
     * skeleton's). None for the scenarios' bad day, whose steps start with the shift.
     */
    warmUpSeconds?: number;
  },
): Promise<BadDayRun> {
  const { say } = opts;
  const database = `${new URL(base.databaseUrl).pathname.slice(1)}_badday`;
  const s: BenchSettings = { ...base, databaseUrl: withDatabase(base.databaseUrl, database), queuePrefix: `${base.queuePrefix}-badday` };
  say(`\n[bad-day ${statistics}] database ${database}: drop, create, migrate; Redis prefix ${s.queuePrefix}: clear`);
  await recreateDatabase(s.adminDatabaseUrl, s.databaseUrl);
  await resetRedis(s);
  // The deep wall carries idle-1-deep and idle-1-deep-keepalive, the cold wall its step: enough units
  // for two steps at 300 pairs/s (a machine doing 1,000 pairs/s in the closed loop emptied 40 orders).
  const deepOrders = Math.ceil((2 * s.seconds * 300) / DEEP_UNITS);
  const seed: BadDaySeed = await seedBadDay(s.databaseUrl, { walls: s.walls, sortersPerWall: s.sortersPerWall, ordersPerWall: s.badDayOrdersPerWall, idleWallOrders: s.badDayIdleWallOrders, deepOrders, skus: s.badDaySkus });
  const historyStart = performance.now();
  await addHistory(s.databaseUrl, seed, s.badDayHistory);
  if (s.badDayHistory > 0) say(`[bad-day ${statistics}] history: ${s.badDayHistory} applied_command records over the last day and as many outbox events over the last six, ${Math.round((performance.now() - historyStart) / 1000)} s`);
  if (statistics === 'fresh') await holdStatistics(s.databaseUrl);
  say(`[bad-day ${statistics}] seeded ${seed.walls.length - 2} walls × ${BAD_DAY_SLOTS} slots and the deep and cold walls × ${DEEP_SLOTS}, ${seed.sorters.length} sorters, ${seed.shippers.length} shippers, ${seed.upcs.length} SKUs; ${seed.backlog.flat().length} orders to upload`);

  const env: NodeJS.ProcessEnv = { ...serviceEnv(s), SEED_DEMO: 'false', HEALTH_PORT: String(s.port + 2) };
  delete env.SORTING_WORKERS;
  const supervisor = new ServiceProcess(
    'supervisor',
    s.root,
    { command: process.execPath, args: entry(s, 'services/main.ts', opts.nodeArgs), wrapped: false },
    env,
    path.join(s.resultsDir, `bad-day-${statistics}.log`),
  );
  const keepAlive = new BenchHttp('127.0.0.1', s.port);
  const fresh = new BenchHttp('127.0.0.1', s.port, 0, true);
  const healthPort = s.port + 2;
  const probes = new Probes({ host: '127.0.0.1', port: s.port, healthPort });
  const benchLag = monitorEventLoopDelay({ resolution: 10 });
  benchLag.enable();
  const listeners = new HubListeners();
  const pg = new PgClient({ connectionString: s.databaseUrl });
  const releases = new Set<Promise<void>>();
  try {
    await pollUntil('the API (npm start)', async () => (await keepAlive.request('GET', '/readyz', { timeoutMs: 2000 })).status === 200, {
      timeoutMs: 120_000,
      abort: () => (supervisor.running ? undefined : `npm start exited:\n${supervisor.lastLines()}`),
    });
    await pollUntil('sorting workers on the partition queues', async () => (await commandWorkersListening({ redisUrl: s.redisUrl, prefix: s.queuePrefix, partitions: config.QUEUE_PARTITIONS })) > 0, { timeoutMs: 60_000 });
    const roles = () => processesByRole([supervisor.proc.pid]);
    const processes = Object.fromEntries(Object.entries(roles()).map(([k, v]) => [k, v.length]));
    say(`[bad-day ${statistics}] npm start ready: ${JSON.stringify(processes)}`);
    await pg.connect();
    const stats = await StatementStats.open(pg, s.root);
    say(`[bad-day ${statistics}] pg_stat_statements: ${stats.loaded ? 'loaded' : stats.why}`);

    // The morning upload, then the shift starts at once.
    const admin = await signIn(keepAlive, seed.adminEmail);
    if (!admin.auth) throw new Error(`sign-in of the admin failed: ${admin.status} ${admin.code}`);
    const upload = await uploadBacklog(keepAlive, admin.auth, seed);
    let analyzeMs: number | null = null;
    if (statistics === 'analyzed') {
      const t0 = performance.now();
      await pg.query('analyze');
      analyzeMs = Math.round(performance.now() - t0);
    }
    say(`[bad-day ${statistics}] uploaded ${upload.orders} orders in ${upload.calls} calls, ${upload.ms} ms${analyzeMs !== null ? `; ANALYZE ${analyzeMs} ms` : '; no ANALYZE, autovacuum off'}`);
    const floor: RealisticFloor = await prepareFloor(keepAlive, seed);
    const deepWall = seed.walls[seed.deep.wallIndex]!;
    const deepActors = await signInActors(keepAlive, seed.deep.sorters, seed.deep.wallIndex, deepWall.id, true);
    const coldActors = await signInActors(keepAlive, seed.cold.sorters, seed.cold.wallIndex, seed.walls[seed.cold.wallIndex]!.id, false);
    const manager = await signIn(keepAlive, seed.managerEmail);
    if (!manager.auth) throw new Error(`sign-in of the hub's Manager failed: ${manager.status}`);
    await listeners.open(s.port, manager.auth, seed.walls);
    const apiPids = roles().api ?? [];
    if (apiPids.length === 1) probes.apiPid = apiPids[0];
    probes.start(manager.auth, seed.walls.map((w) => w.id), s.databaseUrl);

    const probeSorter = floor.sorters[floor.sorters.length - 1]!;
    const rotation = floor.sorters.filter((a) => a !== probeSorter);
    const explainFixture = { clientId: seed.clientId, wallId: seed.walls[0]!.id, barcode: seed.upcs[0]!, sessionToken: floor.sorters[0]!.sessionToken! };
    const afterUpload = stats.loaded ? null : await explainScanRead(s.databaseUrl, explainFixture);
    if (afterUpload) for (const e of afterUpload) say(`[bad-day ${statistics}] EXPLAIN ${e.statement} after the upload: ${e.executionMs} ms, ${e.buffers} buffers, ${e.topNode} (estimated ${e.estimatedRows} rows, got ${e.actualRows})`);

    // The service's first seconds, as the skeleton's (opts.warmUpSeconds, not measured): a process just
    // started runs its code unoptimized and its connections plan their statements afresh, and PostgreSQL
    // has just checkpointed (the databases dropped and made), so every page's first change after it
    // writes the whole page to the WAL. Without it, idle-1 measured those seconds, the skeleton its warm
    // loop. One sorter on each wall that no idle or cold step uses, one pair after another; the figures
    // of its first second are reported as the start-up.
    let startUp: BadDayRun['startUp'] = null;
    const warmUpSeconds = opts.warmUpSeconds ?? 0;
    if (warmUpSeconds > 0) {
      // The first sorter of each wall, but idle-1's, the deep and the cold wall.
      const firstOfWall = new Map<number, Actor>();
      for (const a of floor.sorters) if (!firstOfWall.has(a.wallIndex)) firstOfWall.set(a.wallIndex, a);
      for (const w of [0, seed.deep.wallIndex, seed.cold.wallIndex]) firstOfWall.delete(w);
      const warmers = [...firstOfWall.values()];
      // Its first second is the start-up's figures; the rest only warms the code up.
      const firstSeconds = Math.min(1, warmUpSeconds);
      const from = performance.now();
      const warm = await realisticClosed(keepAlive, floor, firstSeconds * 1000, `${statistics} warm-up`, { sorters: warmers });
      const reads = Probes.window(probes.reads, from, performance.now()).filter((p) => p.status === 200).map((p) => p.ms);
      startUp = { seconds: firstSeconds, sorters: warmers.length, pairsPerSecond: warm.pairsPerSecond, scan: warm.scan, confirm: warm.confirm, fiveXx: warm.fiveXx, reads: summarize(reads) };
      say(`[bad-day ${statistics}] start-up (the service's first ${firstSeconds} s, in no step): ${warmers.length} sorters, ${warm.pairsPerSecond} pairs/s · scan p50 ${warm.scan.p50} p99 ${warm.scan.p99} ms · confirm p50 ${warm.confirm.p50} ms · ${warm.fiveXx} × 5xx · hubs' reads p50 ${startUp.reads.p50} ms`);
      if (warmUpSeconds > firstSeconds) {
        const rest = await realisticClosed(keepAlive, floor, (warmUpSeconds - firstSeconds) * 1000, `${statistics} warm-up`, { sorters: warmers });
        say(`[bad-day ${statistics}] warm-up, ${warmUpSeconds - firstSeconds} s more (not measured): ${rest.pairsPerSecond} pairs/s · scan p50 ${rest.scan.p50} ms · ${rest.fiveXx} × 5xx`);
      }
    }

    const mosquitto = mosquittoPid();
    const commands = new RedisCommandMeter(s.redisUrl);
    const meter = new CpuMeter(s.databaseUrl, database, () => ({ ...roles(), redis: opts.redisPid, ...(mosquitto ? { mosquitto } : {}), bench: process.pid }), serviceRoleOfBackend);
    const durationMs = s.seconds * 1000;
    const wall0 = floor.sorters.filter((a) => a.wallIndex === 0);
    const sorterHttp = new RecordingHttp(keepAlive);
    const openHttp = new RecordingHttp(s.badDayFreshConnections ? fresh : keepAlive);
    const freshHttp = new RecordingHttp(fresh);
    type Plan = {
      name: string;
      kind: 'closed' | 'open';
      sorters: Actor[];
      http: RecordingHttp;
      run: (onOfferEnd: () => void) => Promise<RealisticStep & { cold?: ColdFigures }>;
      /** Measured after the step, outside its CPU and statement window. */
      after?: () => Promise<Partial<BadDayStep>>;
      /** Only when BENCH_BADDAY_STEPS names it. */
      optional?: boolean;
    };
    const idle = (name: string, sorters: Actor[], http: RecordingHttp, more: Partial<Plan> = {}): Plan => ({ name, kind: 'closed', sorters, http, run: () => realisticClosed(http, floor, durationMs, `${statistics} ${name}`, { sorters }), ...more });
    const deepReads = async (): Promise<Partial<BadDayStep>> => ({
      wallReads: {
        'deep wall, fresh connections': await readWall(fresh, manager.auth!, deepWall.id, 100),
        'deep wall, kept alive': await readWall(keepAlive, manager.auth!, deepWall.id, 100),
        '24-slot wall, kept alive': await readWall(keepAlive, manager.auth!, seed.walls[0]!.id, 100),
      },
    });
    const plan: Plan[] = [
      idle('idle-1', wall0.slice(0, 1), sorterHttp),
      // As idle-1 and idle-1-deep, on the other kind of connection: which of the two differences costs what.
      idle('idle-1-fresh', wall0.slice(0, 1), freshHttp, { optional: true }),
      idle('idle-1-deep', deepActors, freshHttp, { after: deepReads }),
      idle('idle-1-deep-keepalive', deepActors, sorterHttp, { optional: true }),
      { name: 'cold-wall', kind: 'closed', sorters: coldActors, http: freshHttp, run: () => coldWall(freshHttp, floor, seed.cold.wallIndex, coldActors, durationMs, `${statistics} cold-wall`) },
      { name: 'wall-6', kind: 'closed', sorters: wall0, http: sorterHttp, run: () => realisticClosed(sorterHttp, floor, durationMs, `${statistics} wall-6`, { sorters: wall0 }) },
      ...s.badDayRates.map(
        (rate): Plan => ({
          name: `open-${rate}/s`,
          kind: 'open',
          sorters: rotation,
          http: openHttp,
          run: (onOfferEnd) => realisticOpen(openHttp, floor, rate, durationMs, `${statistics} open-${rate}/s`, { sorters: rotation, onOfferEnd }),
        }),
      ),
      { name: 'closed-60', kind: 'closed', sorters: floor.sorters, http: sorterHttp, run: () => realisticClosed(sorterHttp, floor, durationMs, `${statistics} closed-60`) },
    ];

    // BENCH_BADDAY_STEPS: only the named steps (e.g. to profile one of them alone).
    const chosen = s.badDaySteps ? plan.filter((p) => s.badDaySteps!.includes(p.name)) : plan.filter((p) => !p.optional);
    const steps: BadDayStep[] = [];
    for (const [i, step] of chosen.entries()) {
      if (!supervisor.running) throw new Error(`npm start exited during the run:\n${supervisor.lastLines()}`);
      say(`[bad-day ${statistics} ${i + 1}/${chosen.length}] ${step.name}, ${s.seconds} s`);
      const sizesBefore = await tableSizes(pg);
      const backlogBefore = await pipelineBacklog(pg);
      const sessionsBefore = await sessionsOpened(pg);
      await stats.reset(pg);
      const cpuBefore = await meter.snapshot();
      const commandsBefore = await commands.read();
      const fromUs = monotonicUs();
      const ws0 = await listeners.events();
      step.http.take();
      const metricsBefore = await apiMetrics(keepAlive);
      benchLag.reset();
      const from = performance.now();
      let recovery: Promise<BadDayStep['recovery']> | undefined;
      const idle1 = steps.find((x) => x.step === 'idle-1');
      const normalScanMs = Math.max(20, 2 * (idle1?.scan.p50 ?? 10));
      const run = await step.run(() => {
        recovery = recover(keepAlive, floor, probeSorter, releases, normalScanMs);
      });
      const rec = recovery ? await recovery : undefined;
      const to = performance.now();
      const toUs = monotonicUs();
      const commandsAfter = await commands.read();
      const cpuAfter = await meter.snapshot();
      const cpuMs = CpuMeter.used(cpuBefore, cpuAfter);
      const woken = CpuMeter.woken(cpuBefore, cpuAfter);
      const backlogAfter = await pipelineBacklog(pg);
      const newSessions = (await sessionsOpened(pg)) - sessionsBefore;
      const pairs = run.pairs;
      const perPair = (v: number) => (pairs ? round2(v / pairs) : NaN);
      const cpuPerPairMs = Object.fromEntries(Object.entries(cpuMs).map(([k, v]) => [k, perPair(v)]));
      // The command path: the API and the sorting worker with their own PostgreSQL backends, and Redis
      // (the command queues; the pipeline's Redis work, the hubs' publishes, is small beside them). The
      // pipeline's backends (relay, audit, statistics, consumers) are not the command path.
      const commandPath = ['api', 'sorting', 'postgres:api', 'postgres:sorting', 'redis'].reduce((a, k) => a + (cpuMs[k] ?? 0), 0);
      const postgres = Object.entries(cpuMs).reduce((a, [k, v]) => a + (k.startsWith('postgres:') && k !== 'postgres:other' ? v : 0), 0);
      // The bench's own statements (statistics, sizes: postgres:other) are not the service's.
      const service = Object.entries(cpuMs).reduce((a, [k, v]) => a + (k === 'bench' || k === 'mosquitto' || k === 'postgres:other' ? 0 : v), 0);
      const metricsAfter = await apiMetrics(keepAlive);
      const lag = eventLoopLag(metricsAfter);
      const answers = step.http.take();
      const wsEvents = (await listeners.events()) - ws0;
      const reads = Probes.window(probes.reads, from, to);
      const readyz = Probes.window(probes.readyz, from, to);
      const figures: BadDayStep = {
        ...run,
        step: step.name,
        kind: step.kind,
        sorters: step.sorters.length,
        loadAvg1m: round2(os.loadavg()[0]!),
        pipelineBacklog: { start: backlogBefore, end: backlogAfter },
        newSessions,
        scanSplit: scanSplit(run.scan.mean, metricsBefore, metricsAfter),
        slowWindows: slowWindows(answers.filter((a) => (isScan(a) || isConfirm(a)) && a.status >= 200 && a.status < 300), from),
        every: everyAnswer(answers),
        scansNotSent: scansNotSent(run.errors),
        slow: slowAnswers(answers, from, metricsBefore, metricsAfter),
        reads: {
          ...summarize(reads.filter((p) => p.status === 200).map((p) => p.ms)),
          failed: reads.filter((p) => p.status !== 200).length,
          api: apiDuringReads(reads),
          floor: summarize(Probes.window(probes.floorReads, from, to).filter((p) => p.status === 200).map((p) => p.ms)),
          answered: wallViewReads(metricsBefore, metricsAfter),
        },
        readyz: { ...summarize(readyz.map((p) => p.ms)), notReady: readyz.filter((p) => p.status !== 200).length },
        healthz: summarize(Probes.window(probes.healthz, from, to).map((p) => p.ms)),
        readyzHealthPort: { ...summarize(Probes.window(probes.healthPort, from, to).map((p) => p.ms)), notReady: Probes.window(probes.healthPort, from, to).filter((p) => p.status !== 200).length },
        benchEventLoopLagMs: { p99: round2(benchLag.percentile(99) / 1e6), max: round2(benchLag.max / 1e6) },
        apiEventLoopLagMs: lag,
        cpuMs,
        cpuPerPairMs: { ...cpuPerPairMs, postgres: perPair(postgres) },
        commandPathCpuPerPairMs: perPair(commandPath),
        serviceCpuPerPairMs: perPair(service),
        wakeups: rolesPerPair(woken, pairs),
        bytesPerPair: bytesPerPair(sizesBefore, await tableSizes(pg), pairs),
        statements: await stats.read(pg, pairs),
        budget: { cpu: rolesPerPair(cpuMs, pairs), statements: statementsPerPair(await stats.totals(pg), pairs), redisCommands: commandsPerPair(commandsBefore, commandsAfter, pairs) },
        window: { fromUs, toUs },
        ...(rec ? { recovery: rec } : {}),
      };
      if (step.after) Object.assign(figures, await step.after());
      steps.push(figures);
      if (figures.cold) {
        const c = figures.cold;
        say(`[bad-day ${statistics} ${i + 1}/${chosen.length}] cold wall: connects ${c.connectMs.join(', ')} ms · first scans ${c.firstScanMs.join(', ')} ms · first confirms ${c.firstConfirmMs.join(', ')} ms · ${c.over100} answers over 100 ms, the last ${c.lastOver100AtMs ?? '-'} ms into the step · warm scan p50 ${c.warmScan.p50} ms`);
      }
      if (figures.every.n > figures.every.within1s || figures.every.status503 > 0) say(`[bad-day ${statistics} ${i + 1}/${chosen.length}] ${step.name}: ${slowLine(figures.slow)}`);
      if (figures.scansNotSent) {
        say(
          `[bad-day ${statistics} ${i + 1}/${chosen.length}] ${step.name}: WARNING ${figures.scansNotSent} scans not sent: a wall's tote ran out (every unit of its orders scanned), ` +
            'so the step offered less than it says; BENCH_BADDAY_ORDERS and BENCH_BADDAY_IDLE_ORDERS size the totes',
        );
      }
      if (figures.wallReads) say(`[bad-day ${statistics} ${i + 1}/${chosen.length}] GET /walls/{id} p50/p99: ${Object.entries(figures.wallReads).map(([k, v]) => `${k} ${v.p50}/${v.p99} ms`).join(' · ')}`);
      say(
        `[bad-day ${statistics} ${i + 1}/${chosen.length}] ${step.name}: ${figures.pairsPerSecond} pairs/s · scan p50 ${figures.scan.p50} p99 ${figures.scanP99All} ms · every answer max ${figures.every.maxMs} ms, ${figures.every.n - figures.every.within1s} over 1 s or none · 5xx ${figures.fiveXx} · ` +
          `reads p99 ${figures.reads.p99} ms · /readyz p99 ${figures.readyz.p99} ms · ${newSessions} new PostgreSQL sessions · command path ${figures.commandPathCpuPerPairMs} ms CPU/pair · ${figures.wakeups.total} wake-ups/pair · pipeline backlog ${backlogBefore.unrelayed}+${backlogBefore.unconsumed} → ${backlogAfter.unrelayed}+${backlogAfter.unconsumed} events${rec ? ` · back to normal ${rec.unitsRanOut ? 'not measured (no unit left on the probing wall)' : rec.backToNormalMs === null ? `not within ${RECOVERY_MAX_MS / 1000} s` : `after ${rec.backToNormalMs} ms`}` : ''} · ${wsEvents} WS events`,
      );
    }
    await commands.close();
    const pids = roles();
    const atEnd = stats.loaded ? null : await explainScanRead(s.databaseUrl, explainFixture);
    await Promise.all([...releases]);
    return {
      statistics,
      upload: { ...upload, analyzeMs },
      processes,
      statementStats: stats.loaded ? 'loaded' : stats.why!,
      explain: afterUpload && atEnd ? { afterUpload, atEnd } : null,
      steps,
      startUp,
      wsEvents: await listeners.events(),
      pids,
    };
  } finally {
    await probes.stop();
    benchLag.disable();
    listeners.close();
    await pg.end().catch(() => undefined);
    keepAlive.close();
    await supervisor.stop(30_000);
  }
}

/**
 * From the moment an open step stops offering load: the probe sorter scans and confirms, one pair after
 * another, until NORMAL_IN_A_ROW pairs in a row went through with a scan within `normalScanMs`.
 */
async function recover(http: BenchHttp, floor: RealisticFloor, sorter: Actor, releases: Set<Promise<void>>, normalScanMs: number): Promise<NonNullable<BadDayStep['recovery']>> {
  const t0 = performance.now();
  const probes: { atMs: number; scanMs: number; ok: boolean }[] = [];
  let inARow = 0;
  while (performance.now() - t0 < RECOVERY_MAX_MS) {
    const p = await probePair(http, floor, sorter, releases);
    // Its wall's tote ran out: nothing left to probe with (the step reports the scans not sent).
    if (!p.sent) return { backToNormalMs: null, normalScanMs, probes, unitsRanOut: true };
    probes.push({ atMs: Math.round(p.at - t0), scanMs: round2(p.scanMs), ok: p.ok });
    inARow = p.ok && p.scanMs <= normalScanMs ? inARow + 1 : 0;
    if (inARow === NORMAL_IN_A_ROW) {
      const first = probes[probes.length - NORMAL_IN_A_ROW]!;
      return { backToNormalMs: Math.round(first.atMs + first.scanMs), normalScanMs, probes };
    }
  }
  return { backToNormalMs: null, normalScanMs, probes };
}

const counts = (r: Record<string, number>) => Object.entries(r).sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ×${v}`).join(', ') || 'none';

/** BadDayStep.slowWindows in words: `61 of 3000 commands answered over 25 ms; the 100-ms windows with the most: 14 sent at 0.2 s, …`. */
export function slowWindowsText(w: SlowWindows): string {
  const most = w.windows.map((x) => `${x.n} sent at ${x.atS} s`).join(', ');
  return `${w.over} of ${w.of} commands answered over ${w.overMs} ms${most ? `; the 100-ms windows with the most: ${most}` : ''}`;
}

/** Where the answers over 1 s come from, in one line. */
function slowLine(slow: SlowAnswers): string {
  return `over 1 s or none: ${counts(slow.byRequest)} · sent in second ${slow.bySecond.map((n, i) => `${i}:${n}`).join(' ')} · held by the command client (admission to answer) over 1 s: ${counts(slow.heldOver1s)}; over 0.5 s: ${counts(slow.heldOver500ms)} · admission's 503s by reason: ${counts(slow.refusals)}`;
}

const f = (v: number | null | undefined) => (v === null || v === undefined || !Number.isFinite(v) ? '-' : v >= 100 ? v.toFixed(0) : v.toFixed(1));

/** The scenario's tables: one per run (statistics fresh or analyzed), beside the floor. */
export function printBadDay(runs: BadDayRun[], floor: FloorReference): void {
  for (const run of runs) {
    console.log(`\nBad day (${run.statistics === 'fresh' ? 'no statistics for the uploaded rows' : 'ANALYZE after the upload'}): ${run.upload.orders} orders uploaded in ${run.upload.ms} ms, npm start ${JSON.stringify(run.processes)}`);
    console.log(`Floor of this run: p50 ${f(floor.p50Ms)} ms (bare PG transaction + bare queue round trip), ${f(floor.cpuPerPairMs)} ms of CPU per pair. pg_stat_statements: ${run.statementStats}`);
    console.log(
      `  ${'step'.padEnd(14)}${'pairs/s'.padStart(8)}${'scan p50'.padStart(9)}${'p99*'.padStart(7)}${'max'.padStart(7)}${'conf p50'.padStart(9)}${'≤1 s'.padStart(8)}${'5xx'.padStart(6)}${'none'.padStart(5)}${'reads p50/p99'.padStart(15)}${'readyz p99/max'.padStart(16)}${'cmd CPU'.padStart(9)}${'all CPU'.padStart(9)}${'× floor'.padStart(8)}`,
    );
    for (const st of run.steps) {
      const within = st.every.n ? `${((100 * st.every.within1s) / st.every.n).toFixed(1)}%` : '-';
      console.log(
        `  ${st.step.padEnd(14)}${f(st.pairsPerSecond).padStart(8)}${f(st.scan.p50).padStart(9)}${f(st.scanP99All).padStart(7)}${f(st.every.maxMs).padStart(7)}${f(st.confirm.p50).padStart(9)}${within.padStart(8)}${String(st.fiveXx).padStart(6)}${String(st.every.noAnswer).padStart(5)}${`${f(st.reads.p50)}/${f(st.reads.p99)}`.padStart(15)}${`${f(st.readyz.p99)}/${f(st.readyz.max)}`.padStart(16)}${f(st.commandPathCpuPerPairMs).padStart(9)}${f(st.serviceCpuPerPairMs).padStart(9)}${f(st.serviceCpuPerPairMs / floor.cpuPerPairMs).padStart(8)}`,
      );
      const cpu = Object.entries(st.cpuPerPairMs);
      const byRole = cpu.filter(([k]) => k.startsWith('postgres:'));
      console.log(
        `      CPU ms per pair: ${cpu.filter(([k]) => !k.startsWith('postgres')).map(([k, v]) => `${k} ${f(v)}`).join(' · ')} · postgres ${f(st.cpuPerPairMs.postgres)}` +
          (byRole.length ? ` (by role: ${byRole.map(([k, v]) => `${k.slice('postgres:'.length)} ${f(v)}`).join(' · ')})` : ''),
      );
      console.log(
        `      /healthz p50/p99/max ${f(st.healthz.p50)}/${f(st.healthz.p99)}/${f(st.healthz.max)} ms · /readyz on HEALTH_PORT p99/max ${f(st.readyzHealthPort.p99)}/${f(st.readyzHealthPort.max)} ms · ` +
          `event-loop delay p99/max: API ${f(st.apiEventLoopLagMs?.p99)}/${f(st.apiEventLoopLagMs?.max)}, bench ${f(st.benchEventLoopLagMs.p99)}/${f(st.benchEventLoopLagMs.max)} ms · load ${f(st.loadAvg1m)}`,
      );
      const bytes = Object.entries(st.bytesPerPair).slice(0, 8);
      if (bytes.length) console.log(`      bytes per pair: ${bytes.map(([k, v]) => `${k} ${v}`).join(' · ')}`);
      for (const q of st.statements.slice(0, 8)) {
        console.log(`      ${q.statement.padEnd(40).slice(0, 40)} ${f(q.callsPerPair).padStart(6)} calls/pair ${f(q.meanMs).padStart(7)} ms ${f(q.buffersPerCall).padStart(8)} buffers (${f(q.readPerCall)} read) ${f(q.rowsPerCall)} rows`);
      }
      if (st.every.n - st.every.within1s > 0 || st.every.status503 > 0) console.log(`      ${slowLine(st.slow)}`);
      if (st.kind === 'open' && st.slowWindows.over > 0) console.log(`      ${slowWindowsText(st.slowWindows)}`);
      if (st.recovery) console.log(`      back to normal (3 pairs in a row with a scan ≤ ${f(st.recovery.normalScanMs)} ms) ${st.recovery.backToNormalMs === null ? `not within ${RECOVERY_MAX_MS / 1000} s` : `${st.recovery.backToNormalMs} ms after the load dropped`}`);
      if (Object.keys(st.errors).length) console.log(`      errors ${JSON.stringify(st.errors)} · releases ${st.release.n}`);
    }
    if (run.explain) {
      for (const [when, list] of [['after the upload', run.explain.afterUpload], ['at the end', run.explain.atEnd]] as const) {
        console.log(`  EXPLAIN (ANALYZE, BUFFERS) ${when}: ${list.map((e) => `${e.statement} ${e.executionMs} ms, ${e.buffers} buffers (${e.topNode}, estimated ${e.estimatedRows} rows, got ${e.actualRows})`).join(' · ')}`);
      }
    }
  }
}

/** The issue's targets for the bad day, checked (not asserted) against a run. */
export function badDayTargets(run: BadDayRun, floor: FloorReference): { target: string; measured: string; met: boolean }[] {
  const step = (name: string) => run.steps.find((x) => x.step === name);
  const out: { target: string; measured: string; met: boolean }[] = [];
  const idle = step('idle-1');
  if (idle) {
    out.push({ target: 'idle: scan and confirm p50 ≤ 2 × the floor p50', measured: `scan ${idle.scan.p50}, confirm ${idle.confirm.p50} ms vs floor ${floor.p50Ms} ms`, met: idle.scan.p50 <= 2 * floor.p50Ms && idle.confirm.p50 <= 2 * floor.p50Ms });
    out.push({ target: 'idle: GET /walls/{id} p50 ≤ 2 ms', measured: `${idle.reads.p50} ms (a bare PostgreSQL read at the same cadence ${idle.reads.floor.p50} ms)`, met: idle.reads.p50 <= 2 });
  }
  const six = step('wall-6');
  if (six) out.push({ target: '6 sorters on one wall: scan p50 ≤ 10 ms', measured: `${six.scan.p50} ms`, met: six.scan.p50 <= 10 });
  for (const [rate, p99] of [[50, 50], [100, 100]] as const) {
    const st = step(`open-${rate}/s`);
    if (st) out.push({ target: `${rate} pairs/s offered: scan p99 ≤ ${p99} ms, no 5xx`, measured: `p99 ${st.scanP99All} ms, ${st.fiveXx} 5xx, ${st.pairsPerSecond} pairs/s`, met: st.scanP99All <= p99 && st.fiveXx === 0 });
  }
  const closed = step('closed-60');
  if (closed) {
    out.push({ target: 'closed loop ≥ 250 pairs/s', measured: `${closed.pairsPerSecond} pairs/s`, met: closed.pairsPerSecond >= 250 });
    out.push({ target: 'command path (API, sorting, PostgreSQL, Redis) ≤ 5 ms CPU per pair', measured: `${closed.commandPathCpuPerPairMs} ms (closed loop)`, met: closed.commandPathCpuPerPairMs <= 5 });
  }
  const overload = run.steps.filter((x) => x.kind === 'open').sort((a, b) => (b.offeredRate ?? 0) - (a.offeredRate ?? 0))[0];
  if (overload) {
    out.push({ target: `${overload.offeredRate} pairs/s offered: every request answered within 1 s`, measured: `${overload.every.n - overload.every.within1s} of ${overload.every.n} not (slowest ${overload.every.maxMs} ms, ${overload.every.noAnswer} unanswered)`, met: overload.every.within1s === overload.every.n });
    out.push({ target: `${overload.offeredRate} pairs/s offered: /readyz and reads p99 ≤ 50 ms`, measured: `/readyz p99 ${overload.readyz.p99} ms, reads p99 ${overload.reads.p99} ms`, met: overload.readyz.p99 <= 50 && overload.reads.p99 <= 50 });
    const back = overload.recovery?.backToNormalMs;
    out.push({ target: 'back to normal within 2 s of the load dropping', measured: back === null || back === undefined ? 'not within 30 s' : `${back} ms`, met: back !== null && back !== undefined && back <= 2000 });
  }
  return out.map((t) => ({ ...t, target: `bad day (${run.statistics}): ${t.target}` }));
}
