import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client as PgClient } from 'pg';
import { loadConfig } from '../shared/config/config';
import { commandWorkersListening, measureQueueRoundTrip } from './queue-probe';
import { createRedis } from '../shared/redis/redis';
import { BENCH_DATABASE, loadBenchSettings, serviceEnv, type BenchSettings } from './bench-settings';
import { CpuMeter, cpuMs } from './cpu-usage';
import { SORTER_PASSWORD, resetDatabase, resetRedis, seed, type Seeded } from './bench-seed';
import { monotonicUs, printProfile, summarizeProfile, type ProfileSummary } from './cpu-profile';
import { BenchHttp } from './http-client';
import { labelBenchSettings, runLabelBench, type LabelFigures } from './label-load';
import { closedLoop, openLoop, type BenchSorter, type StepFigures } from './load';
import { runCensus, type Census } from './query-census';
import { measurePgFloor } from './lib/pg-floor';
import { checkTargets, printSummary, toMb, type FloorFigures, type MemoryFigures } from './report';
import { RssSampler, ServiceProcess, buildServices, pollUntil, type ServiceCommand } from './service-processes';
import { summarize } from './stats';
import { measureAuditListings, measureHubLatency, type AuditListingFigures, type HubLatencyFigures } from './pipeline-bench';
import { printRealistic, realisticTargets, runRealistic } from './realistic';
import { runInsightsBench } from './insights-bench';
import { badDayTargets, printBadDay, runBadDay, type BadDayRun, type FloorReference } from './bad-day';

/*
 * `npm run bench:scenarios`: the sorting workflow's latency, throughput and memory in the longer scenarios
 * (the easy case, the realistic scenario, the bad day, insights), measured over HTTP against the real
 * processes, next to the floor of the same work (a bare PostgreSQL transaction, a bare queue round trip).
 * `npm run bench` (bench/budget-run.ts) is the skeleton beside the service. docs/benchmarks.md explains the figures.
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

/** The API's own view of its memory (prom-client default metrics on /metrics), MB: is the RSS heap or not? */
async function apiHeap(http: BenchHttp): Promise<Record<string, number> | null> {
  const res = await http.request('GET', '/metrics', { timeoutMs: 5000 });
  if (res.status !== 200 || typeof res.body !== 'string') return null;
  const text = res.body;
  const read = (metric: string) => {
    const m = new RegExp(`^${metric}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text);
    return m ? Math.round((Number(m[1]) / 2 ** 20) * 10) / 10 : NaN;
  };
  return {
    heapUsed: read('nodejs_heap_size_used_bytes'),
    heapTotal: read('nodejs_heap_size_total_bytes'),
    external: read('nodejs_external_memory_bytes'),
    rss: read('process_resident_memory_bytes'),
  };
}

async function serverVersions(s: BenchSettings): Promise<{ postgres: string; redis: string; redisPid: number | undefined }> {
  const pg = new PgClient({ connectionString: s.databaseUrl });
  await pg.connect();
  const redis = createRedis(s.redisUrl);
  try {
    const { rows } = await pg.query<{ server_version: string }>('show server_version');
    const info = await redis.info('server');
    const pid = Number(/process_id:(\d+)/.exec(info)?.[1]);
    return { postgres: rows[0].server_version, redis: /redis_version:(\S+)/.exec(info)?.[1] ?? '?', redisPid: Number.isInteger(pid) ? pid : undefined };
  } finally {
    await pg.end();
    redis.disconnect();
  }
}

/**
 * How to start a service: `node <script.js>` on a tsc build (BENCH_RUNTIME=node, the default), which is
 * what `npm start` and the image run, or `tsx <script.ts>` (BENCH_RUNTIME=tsx, as `npm run start:api` does).
 */
function serviceCommand(s: BenchSettings, script: string, args: string[], nodeArgs: string[]): ServiceCommand {
  if (s.runtime === 'tsx') return { command: path.join(s.root, 'node_modules/.bin/tsx'), args: [...nodeArgs, script, ...args], wrapped: true };
  const built = path.join(s.resultsDir, 'dist', script.replace(/\.ts$/, '.js'));
  return { command: process.execPath, args: [...nodeArgs, built, ...args], wrapped: false };
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
    { name: 'api-wrapper', pid: api?.wrapperPid() },
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
    if (s.runtime === 'node') {
      say('[setup] building the services with tsc into bench/results/dist (BENCH_RUNTIME=node)');
      const warning = buildServices(s.root, s.resultsDir);
      if (warning) say(`[setup] ${warning}`);
    }
    say(`[floor] bare PostgreSQL: ${s.floorN} scan-shaped transactions, one after the other`);
    const pgRun = await measurePgFloor(s.databaseUrl, seeded.floor, s.floorN);
    const pgFloor = summarize(pgRun.samples);
    say(`[floor] bare PostgreSQL, prepared statements: ${s.floorN} transactions (what skipping parse and plan would save)`);
    const preparedRun = await measurePgFloor(s.databaseUrl, seeded.floor, s.floorN, { prepared: true });
    say(`[floor] bare queue: ${s.queueN} add → reply round trips, one after the other`);
    const redisBefore = cpuMs(versions.redisPid);
    const benchBefore = process.cpuUsage();
    const queueFloor = summarize((await measureQueueRoundTrip({ redisUrl: s.redisUrl, prefix: s.queuePrefix }, s.queueN)).samples);
    const benchCpu = process.cpuUsage(benchBefore);
    const redisCpu = (cpuMs(versions.redisPid) ?? NaN) - (redisBefore ?? NaN);
    const floor: FloorFigures = {
      pg: pgFloor,
      queue: queueFloor,
      p50Sum: Math.round((pgFloor.p50 + queueFloor.p50) * 100) / 100,
      pgPrepared: summarize(preparedRun.samples),
      cpuMs: {
        pgTransaction: pgRun.cpuPerTxMs,
        pgTransactionPrepared: preparedRun.cpuPerTxMs,
        // Producer, worker and subscriber all run in this process during the probe.
        queueRoundTrip: { redis: Math.round((redisCpu / s.queueN) * 1000) / 1000, client: Math.round(((benchCpu.user + benchCpu.system) / 1000 / s.queueN) * 1000) / 1000 },
      },
    };
    say(`[floor] PG p50 ${pgFloor.p50} ms · queue p50 ${queueFloor.p50} ms`);

    say(`[setup] starting the API on port ${s.port} and the sorting worker with ${s.runtime}${nodeArgs.length ? ` (node ${nodeArgs.join(' ')})` : ''}`);
    api = new ServiceProcess('api', s.root, serviceCommand(s, 'services/api/main.ts', [], nodeArgs), env, path.join(s.resultsDir, 'api.log'));
    services.push(api);
    worker = new ServiceProcess('worker', s.root, serviceCommand(s, 'workers/main.ts', ['sorting'], nodeArgs), env, path.join(s.resultsDir, 'worker.log'));
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

    const easy = s.scenarios.includes('easy');
    if (easy && s.warmupSeconds > 0) {
      say(`[warm-up] ${sorters.length} sorters, ${s.warmupSeconds} s (not measured; puts every order in a slot)`);
      await closedLoop(http, sorters, s.warmupSeconds * 1000, 'warm-up');
    }

    let census: Census | undefined;
    if (s.countQueries) census = await runCensus(http, sorters[0], queryDir, { api: api.nodePid(), worker: worker.nodePid() }, say);

    // Redis is shared with whatever else runs (its CPU is only a bound); bench = this load generator.
    const meter = new CpuMeter(s.databaseUrl, BENCH_DATABASE, () => ({ api: api?.nodePid(), worker: worker?.nodePid(), redis: versions.redisPid, bench: process.pid }));
    const steps: StepFigures[] = [];
    const durationMs = s.seconds * 1000;
    const plan = !easy ? [] : [
      ...s.concurrencies.map((c) => ({ name: `closed-${c}`, run: () => closedLoop(http, pickSorters(sorters, c, s.sortersPerWall), durationMs, `closed-${c}`) })),
      ...s.rates.map((r) => ({ name: `open-${r}/s`, run: () => openLoop(http, sorters, r, durationMs, `open-${r}/s`) })),
    ];
    const measuredFromUs = monotonicUs();
    for (const [i, step] of plan.entries()) {
      if (!api.running || !worker.running) throw new Error(`a service stopped during the run:\n${(api.running ? worker : api).lastLines()}`);
      say(`[step ${i + 1}/${plan.length}] ${step.name}, ${s.seconds} s`);
      const cpuBefore = await meter.snapshot();
      sampler.resetStep();
      const run = await step.run();
      sampler.sample();
      const totalMs = CpuMeter.used(cpuBefore, await meter.snapshot());
      const perScanMs = Object.fromEntries(Object.entries(totalMs).map(([k, v]) => [k, run.scan.ok ? Math.round((v / run.scan.ok) * 100) / 100 : NaN]));
      const figures: StepFigures = {
        ...run,
        loadAvg1m: Math.round(os.loadavg()[0] * 100) / 100,
        cpu: { totalMs, perScanMs },
        rssPeakMb: { api: toMb(sampler.stepPeak.get('api')), worker: toMb(sampler.stepPeak.get('worker')) },
        apiMemoryAtEndMb: await apiHeap(http),
      };
      steps.push(figures);
      say(
        `[step ${i + 1}/${plan.length}] ${step.name}: scans ${figures.scan.throughput}/s p50 ${figures.scan.latency.p50} p99 ${figures.scan.latency.p99} ms · confirms ${figures.confirm.throughput}/s p99 ${figures.confirm.latency.p99} ms · errors ${JSON.stringify({ ...figures.scan.errors, ...figures.confirm.errors })} · CPU ms per scan+confirm ${JSON.stringify(perScanMs)}`,
      );
    }

    // License plates (PDF and ZPL) through the same API, after the sorting steps; BENCH_LABEL_SECONDS=0 skips them.
    let labels: LabelFigures[] | undefined;
    const labelOpts = labelBenchSettings();
    if (labelOpts.seconds > 0) {
      const pg = new PgClient({ connectionString: s.databaseUrl });
      await pg.connect();
      const orderIds = (await pg.query<{ id: number }>('select id from orders where client_id = $1 order by id', [seeded.clientId]).finally(() => pg.end())).rows.map((r) => r.id);
      labels = await runLabelBench(http, sorters[0]!.auth, orderIds, { ...labelOpts, apiPid: api.nodePid() }, say);
    }

    const measuredToUs = monotonicUs();

    // The event pipeline: the relay (and the audit worker behind it) join for this part only, so the
    // steps above measure the command path as before.
    let pipeline: HubLatencyFigures | undefined;
    let auditListings: AuditListingFigures | undefined;
    if (s.pipelineRate !== null || s.auditRows > 0) {
      const admin = await http.request('POST', '/token', { body: { username: 'admin@bench.example.com', password: 'bench-admin-password' } });
      if (admin.status !== 200) throw new Error(`sign-in of the bench admin failed: ${admin.status}`);
      const adminAuth = `Bearer ${(admin.body as { access_token: string }).access_token}`;
      if (s.pipelineRate !== null) {
        const relay = new ServiceProcess('outbox', s.root, serviceCommand(s, 'workers/main.ts', ['outbox'], []), env, path.join(s.resultsDir, 'outbox.log'));
        const audit = new ServiceProcess('audit', s.root, serviceCommand(s, 'workers/main.ts', ['audit'], []), env, path.join(s.resultsDir, 'audit.log'));
        services.push(relay, audit);
        const pg = new PgClient({ connectionString: s.databaseUrl });
        await pg.connect();
        try {
          const backlog = async () => Number((await pg.query<{ n: string }>('select count(*) as n from outbox_event where id > (select through from outbox_horizon)')).rows[0].n);
          say(`[pipeline] starting the outbox relay and the audit worker; relaying the ${await backlog()} events of the steps above first`);
          await pollUntil('the outbox backlog to be relayed', async () => (await backlog()) === 0, { timeoutMs: 300_000, abort: exitedWhy(relay) });
        } finally {
          await pg.end();
        }
        say(`[pipeline] scan → hub (WebSocket) at ${s.pipelineRate} scans/s offered, ${s.seconds} s`);
        pipeline = await measureHubLatency(http, {
          port: s.port, adminAuth, databaseUrl: s.databaseUrl, sorters, wallIds: seeded.walls.map((w) => w.id), rate: s.pipelineRate, durationMs: s.seconds * 1000,
        });
        say(
          `[pipeline] ${pipeline.scansOk} scans (${pipeline.scanErrors} errors, ${pipeline.missing} never at the hub): send → hub p50 ${pipeline.sendToHub.p50} p99 ${pipeline.sendToHub.p99} ms · ` +
            `answer → hub p50 ${pipeline.answerToHub.p50} p99 ${pipeline.answerToHub.p99} ms`,
        );
        await Promise.all([relay.stop(), audit.stop()]);
      }
      if (s.auditRows > 0) {
        say(`[audit] ${s.auditRows} audit records, then ${s.auditRequests} requests per listing`);
        auditListings = await measureAuditListings(http, { databaseUrl: s.databaseUrl, clientId: seeded.clientId, adminAuth, rows: s.auditRows, requestsPerListing: s.auditRequests, say });
        const worst = [...auditListings.listings].sort((a, b) => b.p95 - a.p95)[0];
        say(`[audit] slowest listing by p95: ${worst.name} p95 ${worst.p95} ms (target < 50 ms)`);
      }
    }
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
    if (s.cpuProf && steps.length) {
      // CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile; the tsx wrappers' own profiles are left out.
      profiles = readdirSync(profileDir)
        .map((f) => ({ f, process: servicePids.get(Number(f.split('.')[3])) }))
        // Thread 0 is the main thread; tsx's module loader runs on a thread of its own (1).
          .filter((x): x is { f: string; process: string } => x.f.endsWith('.cpuprofile') && x.f.split('.')[4] === '0' && x.process !== undefined)
        .map(({ f, process }) => ({ process, ...summarizeProfile(path.join(profileDir, f), s.root, 15, { fromUs: measuredFromUs, toUs: measuredToUs }) }));
      for (const p of profiles) printProfile(p, `CPU profile of the ${p.process} during the measured steps`);
    }

    const targets = checkTargets(floor, steps, memory);
    if (easy) printSummary(floor, steps, memory, targets);

    let realistic: Awaited<ReturnType<typeof runRealistic>> | undefined;
    // Each pair is a scan and a confirm: two PG transactions and two queue round trips, client side included.
    const c = floor.cpuMs;
    const floorCpuPerPairMs = Math.round(2 * (c.pgTransaction.postgres + c.pgTransaction.client + c.queueRoundTrip.redis + c.queueRoundTrip.client) * 100) / 100;
    if (s.scenarios.includes('realistic')) {
      say('\n[realistic] under npm start (the supervisor), then one process per role');
      realistic = await runRealistic(s, config, { nodeArgs, redisPid: versions.redisPid, profileDir, say });
      printRealistic(realistic.modes, floorCpuPerPairMs);
      const checks = realisticTargets(realistic.modes.find((m) => m.mode === 'npm-start'), floorCpuPerPairMs);
      targets.push(...checks.map((t) => ({ ...t, target: `realistic: ${t.target}` })));
      console.log('\nTargets (realistic, npm start):');
      for (const t of checks) console.log(`  ${t.met ? 'MET ' : 'MISS'}  ${t.target}: ${t.measured}`);
    }
    let badDay: BadDayRun[] | undefined;
    if (s.scenarios.includes('bad-day')) {
      const reference: FloorReference = { p50Ms: floor.p50Sum, cpuPerPairMs: floorCpuPerPairMs };
      say('\n[bad-day] the morning upload scanned at once, under npm start');
      badDay = await runBadDay(s, config, { redisPid: versions.redisPid, say, floor: reference, nodeArgs });
      printBadDay(badDay, reference);
      for (const run of badDay) {
        const checks = badDayTargets(run, reference);
        targets.push(...checks);
        console.log(`\nTargets (bad day, ${run.statistics}):`);
        for (const t of checks) console.log(`  ${t.met ? 'MET ' : 'MISS'}  ${t.target}: ${t.measured}`);
      }
    }
    const results = {
      generatedAt: new Date().toISOString(),
      machine: {
        loadAvgAtEnd: os.loadavg().map((v) => Math.round(v * 100) / 100),
        cpus: os.cpus().length,
        cpuModel: os.cpus()[0]?.model,
        memoryGb: Math.round(os.totalmem() / 2 ** 30),
        node: process.version,
        postgres: versions.postgres,
        redis: versions.redis,
      },
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
        runtime: s.runtime,
        pipelineRate: s.pipelineRate,
        auditRows: s.auditRows,
        serviceNodeOptions: process.env.BENCH_SERVICE_NODE_OPTIONS ?? null,
      },
      floor,
      steps,
      memory,
      targets,
      ...(labels ? { labels } : {}),
      ...(pipeline ? { pipeline } : {}),
      ...(auditListings ? { auditListings } : {}),
      serviceLogLines,
      ...(census ? { census } : {}),
      ...(realistic ? { realistic: { ...realistic, floorCpuPerPairMs } } : {}),
      ...(badDay ? { badDay: { runs: badDay, floorCpuPerPairMs } } : {}),
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

/** The insights step (docs/benchmarks.md "Insights"); `npm run bench:scenarios -- insights` runs it alone. BENCH_INSIGHTS=none skips it. */
async function insightsStep(): Promise<void> {
  if (process.env.BENCH_INSIGHTS === 'none') return;
  const s = loadBenchSettings();
  say('\n[step] insights: a million scans over 90 days, rolled up; the /insights operations and the statistics consumer');
  const figures = await runInsightsBench(s, say);
  mkdirSync(s.resultsDir, { recursive: true });
  const out = path.join(s.resultsDir, 'insights.json');
  writeFileSync(out, `${JSON.stringify(figures, null, 2)}\n`);
  say(`insights results written to ${path.relative(process.cwd(), out)}`);
}

const onlyInsights = process.argv[2] === 'insights';
(onlyInsights ? insightsStep() : main().then(insightsStep)).then(
  () => process.exit(0),
  (err) => {
    console.error(`\nbench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);
