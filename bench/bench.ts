import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client as PgClient } from 'pg';
import { loadConfig } from '../shared/config/config';
import { commandWorkersListening, measureQueueRoundTrip } from '../shared/queue/queue-probe';
import { createRedis } from '../shared/redis/redis';
import { BENCH_DATABASE, loadBenchSettings, serviceEnv, type BenchSettings } from './bench-settings';
import { CpuMeter } from './cpu-usage';
import { SORTER_PASSWORD, resetDatabase, resetRedis, seed, type Seeded } from './bench-seed';
import { monotonicUs, printProfile, summarizeProfile, type ProfileSummary } from './cpu-profile';
import { BenchHttp } from './http-client';
import { censusCycle, closedLoop, openLoop, type BenchSorter, type StepFigures } from './load';
import { measurePgFloor } from './pg-floor';
import { checkTargets, printSummary, toMb, type FloorFigures, type MemoryFigures } from './report';
import { RssSampler, ServiceProcess, pollUntil } from './service-processes';
import { summarize } from './stats';

/*
 * `npm run bench`: the sorting workflow's latency, throughput and memory, measured over HTTP against
 * the real API and sorting worker started as child processes, next to the floor of the same work
 * (a bare PostgreSQL transaction, a bare queue round trip). docs/benchmarks.md explains the figures.
 */

const say = (line: string) => console.log(line);

async function signInAndConnect(http: BenchHttp, seeded: Seeded): Promise<BenchSorter[]> {
  const sorters: BenchSorter[] = [];
  // Ten at a time: bcrypt is CPU-bound and shares the API's two cores with everything else.
  for (let i = 0; i < seeded.sorters.length; i += 10) {
    const batch = seeded.sorters.slice(i, i + 10);
    sorters.push(
      ...(await Promise.all(
        batch.map(async (sorter) => {
          const token = await http.request('POST', '/token', { body: { username: sorter.email, password: SORTER_PASSWORD } });
          if (token.status !== 200) throw new Error(`sign-in of ${sorter.email} failed: ${token.status} ${JSON.stringify(token.body)}`);
          const auth = `Bearer ${(token.body as { access_token: string }).access_token}`;
          const wall = seeded.walls[sorter.wallIndex];
          const session = await http.request('POST', `/api/v1/walls/${wall.id}/sessions`, { auth, body: {} });
          if (session.status !== 200) throw new Error(`connecting ${sorter.email} to wall ${wall.id} failed: ${session.status} ${JSON.stringify(session.body)}`);
          return {
            label: sorter.email,
            wallIndex: sorter.wallIndex,
            auth,
            sessionToken: (session.body as { token: string }).token,
            barcodes: wall.barcodes,
            // Sorters of one wall start on different products.
            next: (sorters.length + batch.indexOf(sorter)) * 3,
          };
        }),
      )),
    );
  }
  return sorters;
}

interface QueryCounts {
  writtenAt: number;
  total: number;
  statements: Record<string, number>;
}

/** Asks a service's query counter (bench/query-counter.cjs) for its totals and waits for them. */
async function readQueryCounts(dir: string, pid: number | undefined): Promise<QueryCounts> {
  if (!pid) throw new Error('no process to count the queries of');
  const file = path.join(dir, `queries-${pid}.json`);
  const asked = Date.now();
  process.kill(pid, 'SIGUSR2');
  return pollUntil(
    `the query counts of process ${pid}`,
    async () => {
      if (!existsSync(file)) return undefined;
      const counts = JSON.parse(readFileSync(file, 'utf8')) as QueryCounts;
      return counts.writtenAt >= asked ? counts : undefined;
    },
    { timeoutMs: 10_000, intervalMs: 20 },
  );
}

function perCommand(before: QueryCounts, after: QueryCounts, n: number): { total: number; statements: Record<string, number> } {
  const statements: Record<string, number> = {};
  for (const [text, count] of Object.entries(after.statements)) {
    const d = count - (before.statements[text] ?? 0);
    if (d > 0) statements[text] = Math.round((d / n) * 100) / 100;
  }
  return { total: Math.round(((after.total - before.total) / n) * 100) / 100, statements };
}

async function serverVersions(s: BenchSettings): Promise<{ postgres: string; redis: string }> {
  const pg = new PgClient({ connectionString: s.databaseUrl });
  await pg.connect();
  const redis = createRedis(s.redisUrl);
  try {
    const { rows } = await pg.query<{ server_version: string }>('show server_version');
    const info = await redis.info('server');
    return { postgres: rows[0].server_version, redis: /redis_version:(\S+)/.exec(info)?.[1] ?? '?' };
  } finally {
    await pg.end();
    redis.disconnect();
  }
}

async function main(): Promise<void> {
  const s = loadBenchSettings();
  const config = loadConfig(serviceEnv(s));
  mkdirSync(s.resultsDir, { recursive: true });
  const queryDir = path.join(s.resultsDir, 'queries');
  const profileDir = path.join(s.resultsDir, 'profiles');
  rmSync(queryDir, { recursive: true, force: true });
  if (s.countQueries) mkdirSync(queryDir, { recursive: true });
  if (s.cpuProf) {
    rmSync(profileDir, { recursive: true, force: true });
    mkdirSync(profileDir, { recursive: true });
  }

  const http = new BenchHttp('127.0.0.1', s.port);
  const services: ServiceProcess[] = [];
  let api: ServiceProcess | undefined;
  let worker: ServiceProcess | undefined;
  const sampler = new RssSampler(() => [
    { name: 'api', pid: api?.nodePid() },
    { name: 'worker', pid: worker?.nodePid() },
    { name: 'api-wrapper', pid: api?.running ? api.proc.pid : undefined },
  ]);
  let stopping: Promise<void> | undefined;
  const stopServices = () =>
    (stopping ??= (async () => {
      sampler.stop();
      http.close();
      await Promise.all(services.map((p) => p.stop()));
    })());
  const onSignal = (signal: string) => {
    say(`\n${signal}: stopping the services`);
    void stopServices().finally(() => process.exit(130));
  };
  process.once('SIGINT', () => onSignal('SIGINT'));
  process.once('SIGTERM', () => onSignal('SIGTERM'));
  process.on('exit', () => services.forEach((p) => p.killNow()));

  try {
    const busy = await http.request('GET', '/healthz', { timeoutMs: 1000 });
    if (busy.status !== 0) throw new Error(`something already answers on port ${s.port}; stop it or set BENCH_PORT`);

    const load = os.loadavg()[0];
    if (load > os.cpus().length * 0.5) {
      say(`[setup] warning: the 1-minute load average is ${load.toFixed(2)} on ${os.cpus().length} CPUs: other work on this machine will skew the figures`);
    }
    say(`[setup] database ${new URL(s.databaseUrl).pathname.slice(1)}: drop, create, migrate; Redis prefix ${s.queuePrefix}: clear`);
    await resetDatabase(s);
    const cleared = await resetRedis(s);
    const seedStart = Date.now();
    const seeded = await seed(s);
    say(
      `[setup] seeded ${s.walls} walls × ${s.slotsPerWall} slots, ${seeded.sorters.length} sorters, ${s.walls * s.ordersPerWall} orders × qty ${s.qtyPerLine} in ${Date.now() - seedStart} ms (${cleared} old Redis keys deleted)`,
    );
    const versions = await serverVersions(s);

    const env = serviceEnv(s);
    const nodeArgs: string[] = [];
    if (s.countQueries) {
      nodeArgs.push('--require', path.join(s.root, 'bench/query-counter.cjs'));
      env.BENCH_QUERY_COUNT_DIR = queryDir;
    }
    if (s.cpuProf) nodeArgs.push('--cpu-prof', '--cpu-prof-dir', profileDir);
    say(`[setup] starting the API on port ${s.port} and the sorting worker${nodeArgs.length ? ` (node ${nodeArgs.join(' ')})` : ''}`);
    api = new ServiceProcess('api', s.root, ['services/api/main.ts'], env, path.join(s.resultsDir, 'api.log'), nodeArgs);
    services.push(api);
    worker = new ServiceProcess('worker', s.root, ['workers/main.ts', 'sorting'], env, path.join(s.resultsDir, 'worker.log'), nodeArgs);
    services.push(worker);
    const startedAt = Date.now();
    const apiRef = api;
    const workerRef = worker;
    const exitedWhy = (p: ServiceProcess) => () => (p.running ? undefined : `the ${p.name} process exited; its last lines:\n${p.lastLines()}`);
    await pollUntil('the API /readyz', async () => (await http.request('GET', '/readyz', { timeoutMs: 2000 })).status === 200, {
      timeoutMs: 60_000,
      abort: exitedWhy(apiRef),
    });
    await pollUntil('the sorting worker on every partition queue', async () => (await commandWorkersListening({ redisUrl: s.redisUrl, prefix: s.queuePrefix, partitions: config.QUEUE_PARTITIONS })) > 0, {
      timeoutMs: 60_000,
      abort: exitedWhy(workerRef),
    });
    say(`[setup] API and worker ready after ${Date.now() - startedAt} ms`);
    sampler.start(200);

    const sorters = await signInAndConnect(http, seeded);
    say(`[setup] ${sorters.length} sorters signed in and connected to their walls`);

    say(`[floor] bare PostgreSQL: ${s.floorN} scan-shaped transactions, one after the other`);
    const pgFloor = summarize(await measurePgFloor(s.databaseUrl, seeded.floor, s.floorN));
    say(`[floor] bare queue: ${s.queueN} add → reply round trips, one after the other`);
    const queueFloor = summarize((await measureQueueRoundTrip({ redisUrl: s.redisUrl, prefix: s.queuePrefix }, s.queueN)).samples);
    const floor: FloorFigures = { pg: pgFloor, queue: queueFloor, p50Sum: Math.round((pgFloor.p50 + queueFloor.p50) * 100) / 100 };
    say(`[floor] PG p50 ${pgFloor.p50} ms · queue p50 ${queueFloor.p50} ms`);

    if (s.warmupSeconds > 0) {
      say(`[warm-up] ${sorters.length} sorters, ${s.warmupSeconds} s (not measured; puts every order in a slot)`);
      await closedLoop(http, sorters, s.warmupSeconds * 1000, 'warm-up');
    }

    let census: Record<string, unknown> | undefined;
    if (s.countQueries) {
      const n = 50;
      say(`[census] counting statements: ${n} scans, then their confirms, by one sorter`);
      const pids = { api: api.nodePid(), worker: worker.nodePid() };
      const read = async () => ({ api: await readQueryCounts(queryDir, pids.api), worker: await readQueryCounts(queryDir, pids.worker) });
      const before = await read();
      let mid = before;
      const done = await censusCycle(http, sorters[0], n, async () => {
        mid = await read();
      });
      const after = await read();
      census = {
        scans: done.scans,
        confirms: done.confirms,
        perScan: { api: perCommand(before.api, mid.api, done.scans), worker: perCommand(before.worker, mid.worker, done.scans) },
        perConfirm: { api: perCommand(mid.api, after.api, done.confirms), worker: perCommand(mid.worker, after.worker, done.confirms) },
      };
      const ps = census.perScan as Record<string, { total: number }>;
      const pc = census.perConfirm as Record<string, { total: number }>;
      say(`[census] statements per scan: API ${ps.api.total}, worker ${ps.worker.total} · per confirm: API ${pc.api.total}, worker ${pc.worker.total}`);
      for (const [label, per] of [['scan', census.perScan], ['confirm', census.perConfirm]] as const) {
        for (const [role, counts] of Object.entries(per as Record<string, { statements: Record<string, number> }>)) {
          for (const [text, count] of Object.entries(counts.statements)) say(`  ${label} ${role.padEnd(6)} ${String(count).padStart(5)} × ${text.slice(0, 120)}`);
        }
      }
    }

    const meter = new CpuMeter(s.databaseUrl, BENCH_DATABASE, () => ({ api: api?.nodePid(), worker: worker?.nodePid() }));
    const steps: StepFigures[] = [];
    const durationMs = s.seconds * 1000;
    const plan = [
      ...s.concurrencies.map((c) => ({ name: `closed-${c}`, run: () => closedLoop(http, pickSorters(sorters, c, s.sortersPerWall), durationMs, `closed-${c}`) })),
      ...s.rates.map((r) => ({ name: `open-${r}/s`, run: () => openLoop(http, sorters, r, durationMs, `open-${r}/s`) })),
    ];
    const measuredFromUs = monotonicUs();
    for (const [i, step] of plan.entries()) {
      if (!api.running || !worker.running) throw new Error(`a service stopped during the run:\n${(api.running ? worker : api).lastLines()}`);
      say(`[step ${i + 1}/${plan.length}] ${step.name}, ${s.seconds} s`);
      const cpuBefore = await meter.snapshot();
      const run = await step.run();
      const totalMs = CpuMeter.used(cpuBefore, await meter.snapshot());
      const perScanMs = Object.fromEntries(Object.entries(totalMs).map(([k, v]) => [k, run.scan.ok ? Math.round((v / run.scan.ok) * 100) / 100 : NaN]));
      const figures: StepFigures = { ...run, loadAvg1m: Math.round(os.loadavg()[0] * 100) / 100, cpu: { totalMs, perScanMs } };
      steps.push(figures);
      say(
        `[step ${i + 1}/${plan.length}] ${step.name}: scans ${figures.scan.throughput}/s p50 ${figures.scan.latency.p50} p99 ${figures.scan.latency.p99} ms · confirms ${figures.confirm.throughput}/s p99 ${figures.confirm.latency.p99} ms · errors ${JSON.stringify({ ...figures.scan.errors, ...figures.confirm.errors })} · CPU ms per scan+confirm ${JSON.stringify(perScanMs)}`,
      );
    }

    const measuredToUs = monotonicUs();
    sampler.sample();
    const memory: MemoryFigures = {
      apiPeakMb: toMb(sampler.peak.get('api')),
      apiEndMb: toMb(sampler.last.get('api')),
      workerPeakMb: toMb(sampler.peak.get('worker')),
      workerEndMb: toMb(sampler.last.get('worker')),
      wrapperPeakMb: toMb(sampler.peak.get('api-wrapper')),
    };
    const serviceLogLines = { api: api.lines, worker: worker.lines };
    const servicePids = new Map([[api.nodePid(), 'API'], [worker.nodePid(), 'worker']]);
    say('[teardown] stopping the API and the worker');
    await stopServices();

    let profiles: (ProfileSummary & { process: string })[] | undefined;
    if (s.cpuProf) {
      // CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile; the tsx wrappers' own profiles are left out.
      profiles = readdirSync(profileDir)
        .map((f) => ({ f, process: servicePids.get(Number(f.split('.')[3])) }))
        .filter((x): x is { f: string; process: string } => x.f.endsWith('.cpuprofile') && x.process !== undefined)
        .map(({ f, process }) => ({ process, ...summarizeProfile(path.join(profileDir, f), s.root, 15, { fromUs: measuredFromUs, toUs: measuredToUs }) }));
      for (const p of profiles) printProfile(p, `CPU profile of the ${p.process} during the measured steps`);
    }

    const targets = checkTargets(floor, steps, memory);
    printSummary(floor, steps, memory, targets);
    const results = {
      generatedAt: new Date().toISOString(),
      machine: { loadAvgAtEnd: os.loadavg().map((v) => Math.round(v * 100) / 100), cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, memoryGb: Math.round(os.totalmem() / 2 ** 30), node: process.version, ...versions },
      settings: {
        seconds: s.seconds,
        warmupSeconds: s.warmupSeconds,
        concurrencies: s.concurrencies,
        rates: s.rates,
        floorN: s.floorN,
        queueN: s.queueN,
        walls: s.walls,
        slotsPerWall: s.slotsPerWall,
        sortersPerWall: s.sortersPerWall,
        ordersPerWall: s.ordersPerWall,
        queuePartitions: config.QUEUE_PARTITIONS,
        databasePoolMax: config.DATABASE_POOL_MAX,
        countQueries: s.countQueries,
        cpuProf: s.cpuProf,
      },
      floor,
      steps,
      memory,
      targets,
      serviceLogLines,
      ...(census ? { census } : {}),
      ...(profiles ? { profiles } : {}),
    };
    const out = path.join(s.resultsDir, 'latest.json');
    writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
    say(`\nresults written to ${path.relative(process.cwd(), out)}${serviceLogLines.api + serviceLogLines.worker ? ` (service logs: bench/results/api.log, worker.log)` : ''}`);
  } finally {
    await stopServices();
  }
}

/** c sorters: all of the first wall's up to a full wall, then whole walls, so 6 = one wall fully staffed. */
function pickSorters(sorters: BenchSorter[], c: number, perWall: number): BenchSorter[] {
  if (c <= perWall) return sorters.filter((x) => x.wallIndex === 0).slice(0, c);
  return sorters.slice(0, c);
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(`\nbench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);
