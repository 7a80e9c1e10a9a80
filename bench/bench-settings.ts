import path from 'node:path';
import { missingServiceEnv } from '../services/supervisor/child-env';

/**
 * Everything the bench can be told through the environment. The bench never touches a dev
 * database or queue: it always uses the database `sorting_bench` and the Redis prefix `sorting-bench`,
 * on the server named by DATABASE_URL / REDIS_URL (default: the local one).
 */
export interface BenchSettings {
  root: string;
  port: number;
  /** Measured seconds per step. */
  seconds: number;
  warmupSeconds: number;
  databaseUrl: string;
  /** The same server's `postgres` database, for drop/create. */
  adminDatabaseUrl: string;
  redisUrl: string;
  queuePrefix: string;
  /** Closed-loop steps (sorters each); BENCH_CONCURRENCY=none skips them. */
  concurrencies: number[];
  /** Open-loop steps (scans/s offered); BENCH_RATES=none skips them. */
  rates: number[];
  floorN: number;
  queueN: number;
  walls: number;
  slotsPerWall: number;
  sortersPerWall: number;
  ordersPerWall: number;
  qtyPerLine: number;
  /** Load bench/query-counter.cjs into both services and count statements per command. */
  countQueries: boolean;
  /** Run both services with --cpu-prof (profiles in bench/results/profiles). */
  cpuProf: boolean;
  /** tsx (as `npm start` does, the default) or node on a tsc build in bench/results/dist (the production shape). */
  runtime: 'tsx' | 'node';
  resultsDir: string;
  /** Scans/s offered while measuring scan → hub latency with the outbox relay running; null skips it. */
  pipelineRate: number | null;
  /** Audit records generated before timing the audit listings; 0 skips it. */
  auditRows: number;
  auditRequests: number;
  /** Which scenarios run: `easy` (one order per slot, one API and one worker), `realistic` and `bad-day` (docs/benchmarks.md). */
  scenarios: Scenario[];
  /** Realistic scenario: open-loop rates (pairs/s). */
  realisticRates: number[];
  /** Realistic scenario: orders seeded per wall (1–3 units each). */
  realisticOrdersPerWall: number;
  /** Bad-day scenario (docs/benchmarks.md): open-loop rates (pairs/s), the last one the overload. */
  badDayRates: number[];
  /** BENCH_BADDAY_STEPS: only these bad-day steps (names as printed: idle-1, wall-6, open-<rate>/s, closed-60); all when unset. */
  badDaySteps: string[] | null;
  /** Bad-day scenario: orders uploaded per wall (two lines of 5 units). */
  badDayOrdersPerWall: number;
  /** Bad-day scenario: orders uploaded for wall 0, whose tote carries `idle-1` and `idle-1-fresh` before the open and closed steps (BENCH_BADDAY_IDLE_ORDERS; at least badDayOrdersPerWall). */
  badDayIdleWallOrders: number;
  /** BENCH_BADDAY_HISTORY: rows of history in applied_command and in outbox_event before the bad day (bad-day-seed.ts addHistory). */
  badDayHistory: number;
  /** Bad-day scenario: SKUs shared by every warehouse. */
  badDaySkus: number;
  /** Bad-day scenario: `fresh` (no statistics for the uploaded rows), `analyzed` (ANALYZE after the upload), or both, one after the other. */
  badDayStatistics: ('fresh' | 'analyzed')[];
  /** Bad-day scenario: the open-loop steps' requests each on a connection of its own (`fresh`, the default) or on kept-alive ones. */
  badDayFreshConnections: boolean;
}

export type Scenario = 'easy' | 'realistic' | 'bad-day';
const SCENARIOS: readonly Scenario[] = ['easy', 'realistic', 'bad-day'];

// Overridable so that several people can bench on one server at once; the database name must contain
// "bench" (it is dropped and recreated).
export const BENCH_DATABASE = process.env.BENCH_DATABASE || process.env.BENCH_DATABASE_NAME || 'sorting_bench';
export const BENCH_QUEUE_PREFIX = process.env.BENCH_QUEUE_PREFIX || 'sorting-bench';
if (!/^[a-z0-9_]*bench[a-z0-9_]*$/.test(BENCH_DATABASE)) throw new Error(`BENCH_DATABASE must be lower-case letters, digits and _ and contain "bench"; got '${BENCH_DATABASE}'.`);

function int(name: string, fallback: number, min = 1): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min) throw new Error(`${name} must be a number ≥ ${min}; got '${raw}'.`);
  return Math.floor(n);
}

function list(name: string, fallback: number[]): number[] {
  const raw = process.env[name];
  if (!raw) return fallback;
  if (raw.trim() === 'none') return [];
  const values = raw.split(',').map((v) => Number(v.trim()));
  if (values.some((v) => !Number.isFinite(v) || v <= 0)) throw new Error(`${name} must be a comma-separated list of positive numbers; got '${raw}'.`);
  return values;
}

/** An on/off setting: 1, true, yes or on; 0, false, no or off (any letter case); anything else, `fallback`. */
export function envSwitch(raw: string | undefined, fallback: boolean): boolean {
  const v = (raw ?? '').toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  return fallback;
}

function flag(name: string): boolean {
  return envSwitch(process.env[name], false);
}

function runtime(): 'tsx' | 'node' {
  const raw = process.env.BENCH_RUNTIME ?? 'node';
  if (raw !== 'tsx' && raw !== 'node') throw new Error(`BENCH_RUNTIME must be tsx or node; got '${raw}'.`);
  return raw;
}

function scenarios(): Scenario[] {
  const raw = (process.env.BENCH_SCENARIOS ?? SCENARIOS.join(',')).split(',').map((v) => v.trim()).filter(Boolean);
  for (const v of raw) if (!SCENARIOS.includes(v as Scenario)) throw new Error(`BENCH_SCENARIOS must list some of ${SCENARIOS.join(', ')}; got '${v}'.`);
  return raw as Scenario[];
}

function choice<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
  const raw = (process.env[name] ?? fallback).trim();
  if (!allowed.includes(raw as T)) throw new Error(`${name} must be one of ${allowed.join(', ')}; got '${raw}'.`);
  return raw as T;
}

/** The same server URL, naming another database. */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

export function loadBenchSettings(): BenchSettings {
  const root = path.resolve(__dirname, '..');
  const baseDb = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/sorting';
  const settings: BenchSettings = {
    root,
    port: int('BENCH_PORT', 3999),
    seconds: int('BENCH_SECONDS', 10),
    warmupSeconds: int('BENCH_WARMUP_SECONDS', 3, 0),
    databaseUrl: withDatabase(baseDb, BENCH_DATABASE),
    adminDatabaseUrl: withDatabase(baseDb, 'postgres'),
    redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    queuePrefix: BENCH_QUEUE_PREFIX,
    concurrencies: list('BENCH_CONCURRENCY', [1, 6, 60]),
    rates: list('BENCH_RATES', [100, 500]),
    floorN: int('BENCH_FLOOR_N', 2000),
    queueN: int('BENCH_QUEUE_N', 2000),
    walls: 10,
    slotsPerWall: 60,
    sortersPerWall: 6,
    ordersPerWall: 20,
    qtyPerLine: 10_000,
    countQueries: flag('BENCH_COUNT_QUERIES'),
    cpuProf: flag('BENCH_CPU_PROF'),
    pipelineRate: process.env.BENCH_PIPELINE_RATE === 'none' ? null : int('BENCH_PIPELINE_RATE', 100),
    auditRows: int('BENCH_AUDIT_ROWS', 1_000_000, 0),
    auditRequests: int('BENCH_AUDIT_REQUESTS', 40),
    runtime: runtime(),
    resultsDir: path.join(root, 'bench', 'results'),
    scenarios: scenarios(),
    realisticRates: list('BENCH_REALISTIC_RATES', [100, 250]),
    realisticOrdersPerWall: int('BENCH_REALISTIC_ORDERS', 700),
    badDayRates: list('BENCH_BADDAY_RATES', [50, 100, 300]),
    badDaySteps: process.env.BENCH_BADDAY_STEPS ? process.env.BENCH_BADDAY_STEPS.split(',').map((v) => v.trim()).filter(Boolean) : null,
    badDayOrdersPerWall: int('BENCH_BADDAY_ORDERS', 150),
    badDayIdleWallOrders: int('BENCH_BADDAY_IDLE_ORDERS', 150),
    badDayHistory: int('BENCH_BADDAY_HISTORY', 1_000_000, 0),
    badDaySkus: int('BENCH_BADDAY_SKUS', 8, 2),
    badDayStatistics: ((v) => (v === 'both' ? ['fresh', 'analyzed'] : [v]))(choice('BENCH_BADDAY_STATISTICS', ['fresh', 'analyzed', 'both'] as const, 'fresh')) as ('fresh' | 'analyzed')[],
    badDayFreshConnections: choice('BENCH_BADDAY_CONNECTIONS', ['fresh', 'keep-alive'] as const, 'fresh') === 'fresh',
  };
  const maxSorters = settings.walls * settings.sortersPerWall;
  for (const c of settings.concurrencies) {
    if (c > maxSorters) throw new Error(`BENCH_CONCURRENCY ${c} exceeds the ${maxSorters} seeded sorters.`);
  }
  return settings;
}

/** What every bench gives the service processes it starts: its database, port and prefix, production mode, quiet logs. */
export function benchServiceEnv(port: number, databaseUrl: string, queuePrefix: string, more: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'production',
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE_URL: databaseUrl,
    QUEUE_PREFIX: queuePrefix,
    LOG_LEVEL: 'warn',
    SEED_DEMO: 'false',
    JWT_SECRET: 'bench-only-secret-not-for-production',
    ...more,
  };
  // One port for everything: a CATALOG_PORT from the caller's shell would start a second server.
  delete env.CATALOG_PORT;
  return env;
}

/** The environment of the API and worker processes of the scenario benches. */
export function serviceEnv(s: BenchSettings): NodeJS.ProcessEnv {
  const env = benchServiceEnv(s.port, s.databaseUrl, s.queuePrefix, {
    REDIS_URL: s.redisUrl,
    // The light gateway's topics apart from any other deployment's on the same broker (its start sweeps the retained ones).
    MQTT_TOPIC_PREFIX: s.queuePrefix,
  });
  // What the supervisor and the image give every service process (the per-role runs start them directly).
  Object.assign(env, missingServiceEnv(env));
  // Node flags for the services only (e.g. heap limits), not for the bench process.
  if (process.env.BENCH_SERVICE_NODE_OPTIONS !== undefined) env.NODE_OPTIONS = process.env.BENCH_SERVICE_NODE_OPTIONS;
  return env;
}
