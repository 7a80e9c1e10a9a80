import { mkdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { BENCH_DATABASE, loadBenchSettings, serviceEnv } from './bench-settings';
import { resetDatabase, resetRedis } from './bench-seed';
import { seedRealistic } from './realistic-seed';
import { signIn, type Actor, type RealisticFloor } from './realistic-load';
import type { RealisticSeed } from './realistic-seed';
import { BenchHttp, type HttpAnswer } from './http-client';
import { ServiceProcess, buildServices, pollUntil } from './service-processes';
import { processesByRole } from './service-roles';
import { CpuMeter } from './cpu-usage';
import { entry } from './realistic';
import { summarize } from './stats';
import { commandWorkersListening } from './queue-probe';
import { loadConfig } from '../shared/config/config';

/*
 * A closed loop of sorters that re-send at once: the realistic floor (10 walls × 6 sorters, 24 slots,
 * orders of 1–3 units) against `npm start` (the build, as `npm start` runs it), where every sorter scans
 * and confirms again as soon as it has an answer, and sends the same request again at once after a 503
 * (ignoring Retry-After, as an impatient device or a tight client loop does). What it shows: how many
 * requests the admission policy refuses while the service's processes and the machine have CPU left.
 *
 *   flock /tmp/bench.lock env BENCH_PORT=4100 BENCH_DATABASE=my_bench BENCH_QUEUE_PREFIX=my-bench \
 *     npx tsx bench/closed-loop-resend.ts
 *
 * BENCH_SECONDS (30) measured after BENCH_WARMUP_SECONDS (5); BENCH_REALISTIC_ORDERS orders per wall.
 */

const CLIENT_TIMEOUT_MS = 12_000;

/** Busy and total jiffies of the whole machine (/proc/stat), for its CPU use over the step. */
function machineTicks(): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = line.slice(0, 8).reduce((a, b) => a + b, 0);
  const idle = line[3]! + line[4]!;
  return { busy: total - idle, total };
}

class Tally {
  requests = 0;
  refused: Record<string, number> = {};
  other: Record<string, number> = {};
  pairs = 0;
  scanMs: number[] = [];
  confirmMs: number[] = [];
}

/** Sends until the answer is not a 503, at once each time; counts every 503 by operation. */
async function untilAdmitted(t: Tally, op: string, send: () => Promise<HttpAnswer>): Promise<HttpAnswer> {
  for (;;) {
    t.requests++;
    const a = await send();
    if (a.status !== 503) return a;
    t.refused[op] = (t.refused[op] ?? 0) + 1;
  }
}

async function sorterLoop(http: BenchHttp, floor: RealisticFloor, s: Actor, t: Tally, until: () => boolean): Promise<void> {
  const wall = floor.seed.walls[s.wallIndex]!;
  while (!until()) {
    const barcode = wall.putBack.shift() ?? (wall.cursor < wall.tote.length ? wall.tote[wall.cursor++] : undefined);
    if (!barcode) return;
    const key = randomUUID();
    const t0 = performance.now();
    const scan = await untilAdmitted(t, 'scan', () =>
      http.request('POST', '/api/v1/sort-box-items', { auth: s.auth, body: { sessionToken: s.sessionToken, barcode }, timeoutMs: CLIENT_TIMEOUT_MS, headers: { 'idempotency-key': key } }),
    );
    if (scan.status !== 200) {
      if (scan.status >= 400 && scan.status < 500) wall.putBack.push(barcode);
      t.other[`scan ${scan.status} ${scan.code}`] = (t.other[`scan ${scan.status} ${scan.code}`] ?? 0) + 1;
      continue;
    }
    t.scanMs.push(performance.now() - t0);
    const item = scan.body as { id: number; crc: string; orderId: number };
    const t1 = performance.now();
    const confirm = await untilAdmitted(t, 'confirm', () =>
      http.request('PATCH', `/api/v1/sort-box-items/${item.id}/confirm`, { auth: s.auth, body: { barcode: `A-${item.crc}` }, timeoutMs: CLIENT_TIMEOUT_MS }),
    );
    if (confirm.status !== 200) {
      t.other[`confirm ${confirm.status} ${confirm.code}`] = (t.other[`confirm ${confirm.status} ${confirm.code}`] ?? 0) + 1;
      continue;
    }
    t.confirmMs.push(performance.now() - t1);
    t.pairs++;
    const done = (floor.confirmed.get(item.orderId) ?? 0) + 1;
    floor.confirmed.set(item.orderId, done);
    if (done === wall.orderUnits.get(item.orderId)) {
      // The shipper empties the slot before the sorter goes on (the loop stays closed).
      const rel = await untilAdmitted(t, 'release', () => http.request('POST', `/api/v1/sort-boxes/B-${item.crc}/release`, { auth: floor.shippers[s.wallIndex]!.auth, timeoutMs: CLIENT_TIMEOUT_MS }));
      if (rel.status !== 200) t.other[`release ${rel.status} ${rel.code}`] = (t.other[`release ${rel.status} ${rel.code}`] ?? 0) + 1;
    }
  }
}

/** Signs every sorter and shipper in and connects each sorter to its wall, a wall at a time, sending a refused connect again. */
async function prepare(http: BenchHttp, seed: RealisticSeed, t: Tally): Promise<RealisticFloor> {
  const one = async (p: { email: string; wallIndex: number }, connect: boolean): Promise<Actor> => {
    const token = await signIn(http, p.email);
    if (!token.auth) throw new Error(`sign-in of ${p.email} failed: ${token.status} ${token.code}`);
    const actor: Actor = { auth: token.auth, wallIndex: p.wallIndex };
    if (connect) {
      const res = await untilAdmitted(t, 'connect', () => http.request('POST', `/api/v1/walls/${seed.walls[p.wallIndex]!.id}/sessions`, { auth: token.auth, body: {} }));
      if (res.status !== 200) throw new Error(`connecting ${p.email} failed: ${res.status} ${JSON.stringify(res.body)}`);
      actor.sessionToken = (res.body as { token: string }).token;
    }
    return actor;
  };
  const sorters: Actor[] = [];
  for (let i = 0; i < seed.sorters.length; i += 6) sorters.push(...(await Promise.all(seed.sorters.slice(i, i + 6).map((p) => one(p, true)))));
  const shippers = await Promise.all(seed.shippers.map((p) => one(p, false)));
  return { seed, sorters, shippers, confirmed: new Map() };
}

async function closedLoop(http: BenchHttp, floor: RealisticFloor, ms: number): Promise<Tally> {
  const t = new Tally();
  const end = performance.now() + ms;
  await Promise.all(floor.sorters.map((s) => sorterLoop(http, floor, s, t, () => performance.now() >= end)));
  return t;
}

async function main(): Promise<void> {
  const s = loadBenchSettings();
  const seconds = Number(process.env.BENCH_SECONDS ?? 30);
  const warmup = Number(process.env.BENCH_WARMUP_SECONDS ?? 5);
  const config = loadConfig();
  mkdirSync(s.resultsDir, { recursive: true });
  const say = (line: string) => console.log(`[closed-loop-resend] ${line}`);
  say(`building into ${path.join(s.resultsDir, 'dist')}`);
  const warning = buildServices(s.root, s.resultsDir);
  if (warning) say(warning);
  await resetDatabase(s);
  await resetRedis(s);
  const seed = await seedRealistic(s, s.sortersPerWall);
  say(`seeded ${seed.walls.length} walls, ${seed.sorters.length} sorters, ${seed.units} units`);
  const env: NodeJS.ProcessEnv = { ...serviceEnv(s), SEED_DEMO: 'false' };
  delete env.SORTING_WORKERS;
  const supervisor = new ServiceProcess('supervisor', s.root, { command: process.execPath, args: entry({ ...s, runtime: 'node' }, 'services/main.ts', []), wrapped: false }, env, path.join(s.resultsDir, 'closed-loop-resend-supervisor.log'));
  const http = new BenchHttp('127.0.0.1', s.port);
  try {
    await pollUntil('the API', async () => (await http.request('GET', '/readyz', { timeoutMs: 2000 })).status === 200, {
      timeoutMs: 90_000,
      abort: () => (supervisor.running ? undefined : `exited:\n${supervisor.lastLines()}`),
    });
    await pollUntil('sorting workers', async () => (await commandWorkersListening({ redisUrl: s.redisUrl, prefix: s.queuePrefix, partitions: config.QUEUE_PARTITIONS })) > 0, { timeoutMs: 60_000 });
    const connecting = new Tally();
    const floor = await prepare(http, seed, connecting);
    say(`${floor.sorters.length} sorters connected (${connecting.refused.connect ?? 0} connects refused 503 and sent again); warm-up ${warmup} s`);
    if (warmup > 0) await closedLoop(http, floor, warmup * 1000);
    const pids = () => processesByRole([supervisor.proc.pid]);
    const meter = new CpuMeter(s.databaseUrl, BENCH_DATABASE, () => ({ ...pids(), bench: process.pid }));
    const load0 = os.loadavg()[0]!;
    const cpu0 = await meter.snapshot();
    const m0 = machineTicks();
    const t0 = performance.now();
    const t = await closedLoop(http, floor, seconds * 1000);
    const elapsed = performance.now() - t0;
    const m1 = machineTicks();
    const cpu = CpuMeter.used(cpu0, await meter.snapshot());
    const cores = Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, Math.round((v / elapsed) * 100) / 100]));
    const serviceCores = Math.round(Object.entries(cpu).reduce((a, [k, v]) => a + (k === 'bench' ? 0 : v), 0) / elapsed * 100) / 100;
    const refused = Object.values(t.refused).reduce((a, b) => a + b, 0);
    // The admission policy's own account (loopback reads /metrics without credentials).
    const metrics = await http.request('GET', '/metrics', { timeoutMs: 5000 });
    const text = typeof metrics.body === 'string' ? metrics.body : '';
    const sample = (re: RegExp) => [...text.matchAll(re)].map((m) => `${m[1]}=${Math.round(Number(m[2]) * 1000) / 1000}`);
    const admission = {
      refusals: sample(/^command_admission_refusals_total\{reason="(\w+)"\} (\S+)$/gm),
      service: sample(/^command_service_seconds_(sum|count) (\S+)$/gm),
    };
    const result = {
      admission,
      seconds: Math.round(elapsed / 100) / 10,
      requests: t.requests,
      refused503: refused,
      refusedByOp: t.refused,
      refusedShare: Math.round((refused / Math.max(1, t.requests)) * 10000) / 100,
      pairs: t.pairs,
      pairsPerSecond: Math.round((t.pairs / (elapsed / 1000)) * 10) / 10,
      scan: summarize(t.scanMs),
      confirm: summarize(t.confirmMs),
      otherErrors: t.other,
      serviceCores,
      coresByProcess: cores,
      machineBusy: Math.round(((m1.busy - m0.busy) / Math.max(1, m1.total - m0.total)) * 1000) / 10,
      cpus: os.availableParallelism(),
      loadAvg1m: { before: Math.round(load0 * 100) / 100, after: Math.round(os.loadavg()[0]! * 100) / 100 },
    };
    console.log(JSON.stringify(result, null, 2));
    say(
      `${result.pairsPerSecond} pairs/s · ${refused} × 503 of ${t.requests} requests (${result.refusedShare} %) · scan p50 ${result.scan.p50} p99 ${result.scan.p99} ms · confirm p50 ${result.confirm.p50} p99 ${result.confirm.p99} ms · service ${serviceCores} cores (${JSON.stringify(cores)}) · machine ${result.machineBusy} % busy of ${result.cpus} · load ${result.loadAvg1m.before} → ${result.loadAvg1m.after}`,
    );
  } finally {
    http.close();
    await supervisor.stop(30_000);
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
