import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runBench } from './run-bench';
import { BENCH_DATABASE, loadBenchSettings, serviceEnv, withDatabase, type BenchSettings } from './bench-settings';
import { SORTER_PASSWORD, recreateDatabase, resetRedis, seed, type Seeded } from './bench-seed';
import { CpuMeter, cpuMs, type CpuSnapshot } from './cpu-usage';
import { BenchHttp } from './http-client';
import { RssSampler, ServiceProcess, buildServices, pollUntil, residentBytes } from './service-processes';
import { processesByRole } from './service-roles';
import { summarize } from './stats';

/*
 * `npm run bench:footprint` (docs/benchmarks.md, "Footprint of npm start"): what `npm start` costs a small
 * machine. Two runs of the built supervisor on a database of its own:
 *   1. idle: start, /readyz, then nothing for BENCH_FOOTPRINT_IDLE_SECONDS: resident memory of every
 *      process, and the CPU each spent before /readyz and after it (V8 gives memory back after several
 *      seconds without allocation, so the idle time is long enough for that);
 *   2. traffic from /readyz on: one sorter per wall signs in, connects and scans + confirms at
 *      BENCH_FOOTPRINT_RATE pairs/s for BENCH_FOOTPRINT_LOAD_SECONDS; latency per second after /readyz
 *      (when it is steady), CPU per process in the first 10 s and after, then memory once idle again.
 */

const say = (line: string) => console.log(line);

interface ProcessFigures {
  role: string;
  pid: number;
  rssMb: number | null;
  cpuMs: number;
}

interface Pair {
  /** Send time, s after /readyz. */
  at: number;
  scanMs: number;
  confirmMs: number;
  ok: boolean;
}

function settings(): { s: BenchSettings; idleSeconds: number; loadSeconds: number; rate: number } {
  const base = loadBenchSettings();
  const database = `${BENCH_DATABASE}_footprint`;
  const num = (name: string, fallback: number) => {
    const v = Number(process.env[name] ?? fallback);
    if (!Number.isFinite(v) || v <= 0) throw new Error(`${name} must be a positive number`);
    return v;
  };
  return {
    s: { ...base, databaseUrl: withDatabase(base.databaseUrl, database), queuePrefix: `${base.queuePrefix}-footprint` },
    idleSeconds: num('BENCH_FOOTPRINT_IDLE_SECONDS', 40),
    loadSeconds: num('BENCH_FOOTPRINT_LOAD_SECONDS', 25),
    rate: num('BENCH_FOOTPRINT_RATE', 20),
  };
}

const mb = (bytes: number | undefined) => (bytes === undefined ? null : Math.round((bytes / 2 ** 20) * 10) / 10);

/** Every process of the run by role, with its resident memory now and the CPU it used since `since`. */
function processFigures(pids: Record<string, number[]>, since: CpuSnapshot | undefined): ProcessFigures[] {
  const out: ProcessFigures[] = [];
  for (const [role, list] of Object.entries(pids)) {
    for (const pid of list) {
      const now = cpuMs(pid) ?? 0;
      out.push({ role, pid, rssMb: mb(residentBytes(pid)), cpuMs: Math.round(now - (since?.cpu.get(role)?.get(pid) ?? 0)) });
    }
  }
  return out;
}

function printProcesses(title: string, rows: ProcessFigures[], cpuLabel: string): void {
  say(`\n${title}`);
  say(`  ${'process'.padEnd(12)}${'pid'.padStart(8)}${'RSS MB'.padStart(9)}${cpuLabel.padStart(22)}`);
  for (const r of rows) say(`  ${r.role.padEnd(12)}${String(r.pid).padStart(8)}${String(r.rssMb ?? '-').padStart(9)}${String(r.cpuMs).padStart(22)}`);
  const total = rows.reduce((a, r) => a + (r.rssMb ?? 0), 0);
  say(`  ${'all'.padEnd(12)}${''.padStart(8)}${total.toFixed(1).padStart(9)}${String(rows.reduce((a, r) => a + r.cpuMs, 0)).padStart(22)}`);
}

async function startSupervisor(s: BenchSettings, name: string): Promise<{ proc: ServiceProcess; startedAt: number; readyAt: number; pids: () => Record<string, number[]> }> {
  const env: NodeJS.ProcessEnv = { ...serviceEnv(s), SEED_DEMO: 'false' };
  delete env.SORTING_WORKERS;
  const proc = new ServiceProcess('supervisor', s.root, { command: process.execPath, args: [path.join(s.resultsDir, 'dist/services/main.js')], wrapped: false }, env, path.join(s.resultsDir, `footprint-${name}.log`));
  const startedAt = performance.now();
  const http = new BenchHttp('127.0.0.1', s.port, 4);
  try {
    await pollUntil('/readyz', async () => (await http.request('GET', '/readyz', { timeoutMs: 1000 })).status === 200, {
      timeoutMs: 120_000,
      intervalMs: 50,
      abort: () => (proc.running ? undefined : `the supervisor exited:\n${proc.lastLines()}`),
    });
  } finally {
    http.close();
  }
  return { proc, startedAt, readyAt: performance.now(), pids: () => processesByRole([proc.proc.pid]) };
}

async function idleRun(s: BenchSettings, idleSeconds: number) {
  say(`[idle] npm start (the build's services/main.js), then ${idleSeconds} s without requests`);
  const run = await startSupervisor(s, 'idle');
  try {
    const atReady = processFigures(run.pids(), undefined);
    const meter = new CpuMeter(s.databaseUrl, new URL(s.databaseUrl).pathname.slice(1), run.pids);
    const before = await meter.snapshot();
    await new Promise((r) => setTimeout(r, idleSeconds * 1000));
    const after = processFigures(run.pids(), before);
    const readyMs = Math.round(run.readyAt - run.startedAt);
    printProcesses(`Idle: /readyz ${readyMs} ms after the start; resident memory ${idleSeconds} s later, CPU before /readyz and in the ${idleSeconds} s after`, after.map((r) => ({ ...r })), `CPU ms idle ${idleSeconds} s`);
    say(`  CPU ms from the start to /readyz: ${atReady.map((r) => `${r.role} ${r.cpuMs}`).join(' · ')}`);
    return { readyMs, cpuToReadyMs: atReady, idle: after, totalRssMb: Math.round(after.reduce((a, r) => a + (r.rssMb ?? 0), 0) * 10) / 10 };
  } finally {
    await run.proc.stop(30_000);
  }
}

/** One sorter's sign-in: POST /token, then the connect (POST .../sessions), ms; `connectAt` is when the connect was sent, s after /readyz. */
interface SignInTiming {
  wallIndex: number;
  tokenMs: number;
  connectAt: number;
  connectMs: number;
}

async function signIn(http: BenchHttp, seeded: Seeded, wallIndex: number, t0: number): Promise<{ auth: string; sessionToken: string; barcodes: string[]; timing: SignInTiming } | string> {
  const sorter = seeded.sorters.find((x) => x.wallIndex === wallIndex)!;
  const tokenStart = performance.now();
  const token = await http.request('POST', '/token', { body: { username: sorter.email, password: SORTER_PASSWORD }, timeoutMs: 30_000 });
  if (token.status !== 200) return `sign-in ${token.status} ${token.code}`;
  const auth = `Bearer ${(token.body as { access_token: string }).access_token}`;
  const wall = seeded.walls[wallIndex]!;
  const connectStart = performance.now();
  const session = await http.request('POST', `/api/v1/walls/${wall.id}/sessions`, { auth, body: {}, timeoutMs: 30_000 });
  if (session.status !== 200) return `connect ${session.status} ${session.code}`;
  const timing = { wallIndex, tokenMs: Math.round(connectStart - tokenStart), connectAt: Math.round(connectStart - t0) / 1000, connectMs: Math.round(performance.now() - connectStart) };
  return { auth, sessionToken: (session.body as { token: string }).token, barcodes: wall.barcodes, timing };
}

async function trafficRun(s: BenchSettings, seeded: Seeded, loadSeconds: number, idleSeconds: number, rate: number) {
  say(`\n[traffic] npm start again; from /readyz on, one sorter per wall signs in and scans + confirms at ${rate} pairs/s for ${loadSeconds} s`);
  const run = await startSupervisor(s, 'traffic');
  const http = new BenchHttp('127.0.0.1', s.port);
  const roles = run.pids();
  const sampler = new RssSampler(() => Object.entries(roles).flatMap(([role, list]) => list.map((pid, i) => ({ name: `${role}-${i}`, pid }))));
  sampler.start(200);
  const meter = new CpuMeter(s.databaseUrl, new URL(s.databaseUrl).pathname.slice(1), () => roles);
  try {
    const atReady = await meter.snapshot();
    const t0 = run.readyAt;
    const signInStart = performance.now();
    const sorters = await Promise.all(seeded.walls.map((_, w) => signIn(http, seeded, w, t0)));
    const failed = sorters.filter((x): x is string => typeof x === 'string');
    if (failed.length) throw new Error(`signing in after /readyz failed: ${failed.join(', ')}`);
    const ready = sorters as Exclude<(typeof sorters)[number], string>[];
    const signInMs = Math.round(performance.now() - signInStart);
    // Each connect in the order they were sent: the first after /readyz meets whatever the processes
    // had not warmed; the slowest is what a sorter waits at worst.
    const connects = ready.map((r) => r.timing).sort((a, b) => a.connectAt - b.connectAt);
    const firstConnectMs = connects[0]?.connectMs ?? NaN;
    const slowestConnectMs = Math.max(...connects.map((c) => c.connectMs));
    const pairs: Pair[] = [];
    const total = Math.round(rate * loadSeconds);
    const inFlight = new Set<Promise<void>>();
    let tenSeconds: CpuSnapshot | undefined;
    const start = performance.now();
    for (let i = 0, next = 0; i < total; ) {
      const now = performance.now();
      if (!tenSeconds && now - t0 >= 10_000) tenSeconds = await meter.snapshot();
      for (let due = start + (i * 1000) / rate; i < total && due <= now; due = start + (i * 1000) / rate, i++) {
        const sorter = ready[i % ready.length]!;
        const barcode = sorter.barcodes[next++ % sorter.barcodes.length]!;
        const p = (async () => {
          const scan = await http.request('POST', '/api/v1/sort-box-items', { auth: sorter.auth, body: { sessionToken: sorter.sessionToken, barcode }, timeoutMs: 30_000 });
          const scanned = performance.now();
          let confirmMs = NaN;
          let ok = scan.status === 200;
          if (ok) {
            const item = scan.body as { id: number; crc: string };
            const confirm = await http.request('PATCH', `/api/v1/sort-box-items/${item.id}/confirm`, { auth: sorter.auth, body: { barcode: `A-${item.crc}` }, timeoutMs: 30_000 });
            confirmMs = performance.now() - scanned;
            ok = confirm.status === 200;
          }
          pairs.push({ at: (due - t0) / 1000, scanMs: scanned - due, confirmMs, ok });
        })();
        inFlight.add(p);
        void p.finally(() => inFlight.delete(p));
      }
      await new Promise((r) => setTimeout(r, 2));
    }
    await Promise.all([...inFlight]);
    const loadEnd = await meter.snapshot();
    tenSeconds ??= loadEnd;
    const cpuFirst10 = CpuMeter.used(atReady, tenSeconds);
    const cpuAfter10 = CpuMeter.used(tenSeconds, loadEnd);
    const pairsAfter10 = pairs.filter((p) => p.at >= 10).length;

    // Latency per second after /readyz; steady from the end of the last two seconds in a row whose median
    // scan was over twice that of the run's last third or that had a failure (one such second alone, a
    // blip of the machine, does not count).
    const seconds = Math.ceil(Math.max(...pairs.map((p) => p.at)) + 1e-9);
    const buckets = Array.from({ length: seconds }, (_, k) => {
      const inK = pairs.filter((p) => p.at >= k && p.at < k + 1);
      return { second: k, n: inK.length, failed: inK.filter((p) => !p.ok).length, scan: summarize(inK.filter((p) => p.ok).map((p) => p.scanMs)) };
    });
    const tail = pairs.filter((p) => p.ok && p.at >= (pairs[0]?.at ?? 0) + (2 * loadSeconds) / 3);
    const steadyP50 = summarize(tail.map((p) => p.scanMs)).p50;
    const bad = (b: (typeof buckets)[number] | undefined) => !!b && b.n > 0 && (b.failed > 0 || b.scan.p50 > 2 * steadyP50);
    const lastRun = buckets.reduce((last, b, k) => (bad(b) && bad(buckets[k - 1]) ? b.second : last), -1);
    const steadyAfterS = lastRun >= 0 ? lastRun + 1 : Math.floor(pairs[0]?.at ?? 0);

    say(`\nTraffic from /readyz (${Math.round(run.readyAt - run.startedAt)} ms after this start): ${ready.length} sorters signed in and connected ${signInMs} ms after it; ${pairs.length} pairs, ${pairs.filter((p) => !p.ok).length} failed`);
    say(`  connects in the order sent (s after /readyz: connect ms, its POST /token before it ms): ${connects.map((c) => `${c.connectAt.toFixed(2)}:${c.connectMs} (${c.tokenMs})`).join(' ')}`);
    say(`  first connect ${firstConnectMs} ms, slowest ${slowestConnectMs} ms, median ${summarize(connects.map((c) => c.connectMs)).p50} ms; scan p50 in the first second of traffic ${Math.round(buckets.find((b) => b.n > 0)?.scan.p50 ?? NaN)} ms`);
    say(`  second after /readyz: ${buckets.map((b) => `${b.second}:${Number.isFinite(b.scan.p50) ? Math.round(b.scan.p50) : '-'}${b.failed ? `(${b.failed}✗)` : ''}`).join(' ')}   (scan p50 ms)`);
    say(`  steady (no two seconds in a row with a scan p50 over 2× the last third's ${steadyP50} ms or a failure) from ${steadyAfterS} s after /readyz`);
    say(`  CPU ms in the first 10 s after /readyz: ${Object.entries(cpuFirst10).map(([k, v]) => `${k} ${v}`).join(' · ')}`);
    say(`  CPU ms per pair after that: ${Object.entries(cpuAfter10).map(([k, v]) => `${k} ${pairsAfter10 ? (v / pairsAfter10).toFixed(2) : '-'}`).join(' · ')}`);

    say(`\n[traffic] ${idleSeconds} s idle again`);
    await new Promise((r) => setTimeout(r, idleSeconds * 1000));
    sampler.sample();
    const idleAfter = processFigures(roles, loadEnd);
    printProcesses(`Idle after the traffic: resident memory (peak during the traffic in the JSON) and CPU in the ${idleSeconds} s idle`, idleAfter, `CPU ms idle ${idleSeconds} s`);
    return {
      readyMs: Math.round(run.readyAt - run.startedAt),
      signInMs,
      connects,
      firstConnectMs,
      slowestConnectMs,
      firstSecondScanP50: buckets.find((b) => b.n > 0)?.scan.p50 ?? null,
      pairs: pairs.length,
      failed: pairs.filter((p) => !p.ok).length,
      perSecond: buckets.map((b) => ({ second: b.second, n: b.n, failed: b.failed, scanP50: b.scan.p50, scanP99: b.scan.p99 })),
      steadyScanP50: steadyP50,
      steadyAfterS,
      cpuFirst10sMs: cpuFirst10,
      cpuPerPairAfter10sMs: Object.fromEntries(Object.entries(cpuAfter10).map(([k, v]) => [k, pairsAfter10 ? Math.round((v / pairsAfter10) * 100) / 100 : NaN])),
      rssPeakMb: Object.fromEntries([...sampler.peak].map(([k, v]) => [k, mb(v)])),
      idleAfter,
      totalRssIdleAfterMb: Math.round(idleAfter.reduce((a, r) => a + (r.rssMb ?? 0), 0) * 10) / 10,
    };
  } finally {
    sampler.stop();
    http.close();
    await run.proc.stop(30_000);
  }
}

async function main(): Promise<void> {
  const { s, idleSeconds, loadSeconds, rate } = settings();
  mkdirSync(s.resultsDir, { recursive: true });
  const busy = new BenchHttp('127.0.0.1', s.port, 1);
  if ((await busy.request('GET', '/healthz', { timeoutMs: 1000 })).status !== 0) throw new Error(`something already answers on port ${s.port}; stop it or set BENCH_PORT`);
  busy.close();
  say(`[setup] database ${new URL(s.databaseUrl).pathname.slice(1)}: drop, create, migrate, seed (${s.walls} walls); Redis prefix ${s.queuePrefix}: clear`);
  await recreateDatabase(s.adminDatabaseUrl, s.databaseUrl);
  await resetRedis(s);
  const seeded = await seed(s);
  say('[setup] building the services with tsc into bench/results/dist, as npm start does');
  const warning = buildServices(s.root, s.resultsDir);
  if (warning) say(`[setup] ${warning}`);
  const idle = await idleRun(s, idleSeconds);
  const traffic = await trafficRun(s, seeded, loadSeconds, idleSeconds, rate);
  say(`\nnpm start on ${os.availableParallelism()} cores: /readyz after ${idle.readyMs} ms; ${idle.totalRssMb} MB resident at idle, ${traffic.totalRssIdleAfterMb} MB idle after traffic; steady ${traffic.steadyAfterS} s after /readyz`);
  const out = path.join(s.resultsDir, 'footprint.json');
  writeFileSync(out, `${JSON.stringify({ generatedAt: new Date().toISOString(), cores: os.availableParallelism(), loadAvg: os.loadavg(), settings: { idleSeconds, loadSeconds, rate }, idle, traffic }, null, 2)}\n`);
  say(`results written to ${path.relative(process.cwd(), out)}`);
}

runBench('footprint', main);
