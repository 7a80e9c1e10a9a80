import { createServer, type Server } from 'node:http';
import { readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AppConfig } from '../shared/config/config';
import { commandWorkersListening } from './queue-probe';
import { BENCH_DATABASE, serviceEnv, type BenchSettings } from './bench-settings';
import { monotonicUs, printProfile, summarizeProfile, type ProfileSummary } from './cpu-profile';
import { CpuMeter } from './cpu-usage';
import { BenchHttp } from './http-client';
import { prepareFloor, realisticClosed, realisticOpen, signIn, type RealisticFloor, type RealisticStep } from './realistic-load';
import { seedRealistic, type RealisticSeed } from './realistic-seed';
import { HubListeners } from './lib/hub-listeners';
import { RssSampler, ServiceProcess, pollUntil } from './service-processes';
import { toMb } from './report';
import { ROLES } from '../services/supervisor/roles';
import { processesByRole } from './service-roles';

/*
 * The realistic scenario (docs/benchmarks.md), run twice: under `npm start` (the supervisor, which spreads the roles
 * over processes by itself) and with one process per role started by the bench. Each mode: the open loop
 * at the offered rates (a burst of 60 sign-ins during the first), then a closed loop for the maximum
 * sustained rate. Every worker kind runs (a webhook receiver in the bench
 * counts deliveries), and one WebSocket listener per wall follows the events.
 */

export type Mode = 'npm-start' | 'per-role';

export interface RealisticModeResult {
  mode: Mode;
  processes: Record<string, number>;
  steps: (RealisticStep & {
    cpuMs: Record<string, number>;
    cpuPerPairMs: Record<string, number>;
    serviceCpuPerPairMs: number;
    apiRssPeakMb: number | null;
    loadAvg1m: number;
    wsEvents: number;
    webhookDeliveries: number;
  })[];
  apiRssPeakMb: number | null;
  profiles?: (ProfileSummary & { process: string })[];
}

/** Per role: one process of each worker kind `npm start` runs (the supervisor's role table), as the compose file does. */
const ROLE_KINDS = ROLES.flatMap((r) => r.kinds ?? []);

/** Node's arguments to run a service script: the build's .js (BENCH_RUNTIME=node) or the .ts through tsx. */
export function entry(s: BenchSettings, script: string, nodeArgs: string[]): string[] {
  if (s.runtime === 'node') return [...nodeArgs, path.join(s.resultsDir, 'dist', script.replace(/\.ts$/, '.js'))];
  return [...nodeArgs, '--import', 'tsx', script];
}

/** A webhook receiver on BENCH_PORT + 1 that answers 204 and counts. */
function webhookReceiver(port: number): Promise<{ server: Server; count: () => number }> {
  let n = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      n++;
      res.statusCode = 204;
      res.end();
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve({ server, count: () => n }));
  });
}

export async function runRealistic(
  s: BenchSettings,
  config: AppConfig,
  opts: { nodeArgs: string[]; redisPid: number | undefined; profileDir: string; say: (line: string) => void },
): Promise<{ seed: { walls: number; orders: number; units: number; seedMs: number }; modes: RealisticModeResult[]; floorNote: string }> {
  const { say } = opts;
  const t0 = Date.now();
  const seed: RealisticSeed = await seedRealistic(s, s.sortersPerWall);
  const seedMs = Date.now() - t0;
  say(`[realistic] seeded ${seed.walls.length} walls × 24 slots, ${seed.walls.length * s.realisticOrdersPerWall} orders (${seed.units} units of 1–3 per order), ${seed.sorters.length} sorters and ${seed.shippers.length} shippers in ${seedMs} ms`);
  const receiver = await webhookReceiver(s.port + 1);
  const http = new BenchHttp('127.0.0.1', s.port);
  let floor: RealisticFloor | undefined;
  const modes: RealisticModeResult[] = [];
  try {
    for (const mode of ['npm-start', 'per-role'] as Mode[]) {
      modes.push(await runMode(mode));
    }
  } finally {
    http.close();
    receiver.server.close();
  }
  return { seed: { walls: seed.walls.length, orders: seed.walls.length * s.realisticOrdersPerWall, units: seed.units, seedMs }, modes, floorNote: 'floor: see the floor section (same run)' };

  async function runMode(mode: Mode): Promise<RealisticModeResult> {
    const env: NodeJS.ProcessEnv = { ...serviceEnv(s), WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', SEED_DEMO: 'false' };
    delete env.SORTING_WORKERS;
    const services: ServiceProcess[] = [];
    const spawnNode = (name: string, script: string, args: string[] = []) => {
      const p = new ServiceProcess(name, s.root, { command: process.execPath, args: [...entry(s, script, opts.nodeArgs), ...args], wrapped: false }, env, path.join(s.resultsDir, `realistic-${mode}-${name}.log`));
      services.push(p);
      return p;
    };
    if (mode === 'npm-start') spawnNode('supervisor', 'services/main.ts');
    else {
      spawnNode('api', 'services/api/main.ts');
      for (const kind of ROLE_KINDS) spawnNode(kind, 'workers/main.ts', [kind]);
    }
    const pids = (): Record<string, number[]> => processesByRole(services.map((p) => p.proc.pid));
    const sampler = new RssSampler(() => (pids().api ?? []).map((pid, i) => ({ name: `api-${i}`, pid })));
    const listeners = new HubListeners();
    try {
      const started = Date.now();
      const dead = () => services.find((p) => !p.running);
      await pollUntil(`the API (${mode})`, async () => (await http.request('GET', '/readyz', { timeoutMs: 2000 })).status === 200, {
        timeoutMs: 90_000,
        abort: () => (dead() ? `${dead()!.name} exited:\n${dead()!.lastLines()}` : undefined),
      });
      await pollUntil('sorting workers on the partition queues', async () => (await commandWorkersListening({ redisUrl: s.redisUrl, prefix: s.queuePrefix, partitions: config.QUEUE_PARTITIONS })) > 0, { timeoutMs: 60_000 });
      const processes = Object.fromEntries(Object.entries(pids()).map(([k, v]) => [k, v.length]));
      say(`[realistic ${mode}] ready after ${Date.now() - started} ms: ${JSON.stringify(processes)}`);
      sampler.start(200);

      if (!floor) {
        floor = await prepareFloor(http, seed);
        const admin = await signIn(http, seed.adminEmail);
        const hook = await http.request('POST', '/api/v1/admin/webhooks', {
          auth: admin.auth,
          body: { url: `http://127.0.0.1:${s.port + 1}/hook`, events: ['sort-box.completed', 'sort-box.released', 'session.started', 'session.ended'] },
        });
        if (hook.status !== 200 && hook.status !== 201) throw new Error(`creating the webhook failed: ${hook.status} ${JSON.stringify(hook.body)}`);
        say(`[realistic] ${floor.sorters.length} sorters connected, ${floor.shippers.length} shippers signed in, webhook subscribed`);
      }
      const admin = await signIn(http, seed.adminEmail);
      await listeners.open(s.port, admin.auth!, seed.walls);

      if (s.warmupSeconds > 0) {
        say(`[realistic ${mode}] warm-up, ${s.warmupSeconds} s closed loop (not measured)`);
        await realisticClosed(http, floor, s.warmupSeconds * 1000, 'warm-up');
      }
      const meter = new CpuMeter(s.databaseUrl, BENCH_DATABASE, () => ({ ...pids(), redis: opts.redisPid, bench: process.pid }));
      const durationMs = s.seconds * 1000;
      const plan = [
        ...s.realisticRates.map((r, i) => ({
          name: `open-${r}/s${i === 0 ? '+sign-ins' : ''}`,
          run: () => realisticOpen(http, floor!, r, durationMs, `${mode} open-${r}/s`, i === 0 ? { burstAtMs: durationMs / 3 } : {}),
        })),
        { name: 'closed-60', run: () => realisticClosed(http, floor!, durationMs, `${mode} closed-60`) },
      ];
      const fromUs = monotonicUs();
      const steps: RealisticModeResult['steps'] = [];
      for (const [i, step] of plan.entries()) {
        if (dead()) throw new Error(`${dead()!.name} exited during the run:\n${dead()!.lastLines()}`);
        say(`[realistic ${mode} ${i + 1}/${plan.length}] ${step.name}, ${s.seconds} s`);
        const before = await meter.snapshot();
        const ws0 = await listeners.events();
        const hooks0 = receiver.count();
        sampler.resetStep();
        const run = await step.run();
        sampler.sample();
        const cpuMs = CpuMeter.used(before, await meter.snapshot());
        const cpuPerPairMs = Object.fromEntries(Object.entries(cpuMs).map(([k, v]) => [k, run.pairs ? Math.round((v / run.pairs) * 100) / 100 : NaN]));
        const serviceCpuPerPairMs = Math.round(Object.entries(cpuPerPairMs).reduce((a, [k, v]) => a + (k === 'bench' ? 0 : v), 0) * 100) / 100;
        const apiPeak = Math.max(0, ...[...sampler.stepPeak.values()]);
        const figures = {
          ...run,
          step: step.name,
          cpuMs,
          cpuPerPairMs,
          serviceCpuPerPairMs,
          apiRssPeakMb: apiPeak ? toMb(apiPeak) : null,
          loadAvg1m: Math.round(os.loadavg()[0] * 100) / 100,
          wsEvents: (await listeners.events()) - ws0,
          webhookDeliveries: receiver.count() - hooks0,
        };
        steps.push(figures);
        say(
          `[realistic ${mode} ${i + 1}/${plan.length}] ${step.name}: ${figures.pairsPerSecond} pairs/s · scan p50 ${figures.scan.p50} p99 ${figures.scan.p99} (all ${figures.scanP99All}) ms · 5xx ${figures.fiveXx} · errors ${JSON.stringify(figures.errors)}` +
            `${figures.signIns ? ` · sign-ins p50 ${figures.signIns.latency.p50} p99 ${figures.signIns.latency.p99} ms, scan p99 meanwhile ${figures.signIns.scanDuring.p99} ms` : ''} · CPU ms/pair ${JSON.stringify(cpuPerPairMs)} · API RSS ${figures.apiRssPeakMb} MB · ${figures.wsEvents} WS events, ${figures.webhookDeliveries} webhooks`,
        );
      }
      const toUs = monotonicUs();
      const servicePids = new Map<number, string>();
      for (const [role, list] of Object.entries(pids())) list.forEach((pid, i) => servicePids.set(pid, list.length > 1 ? `${role}-${i + 1}` : role));
      sampler.stop();
      const apiRssPeakMb = toMb(Math.max(0, ...[...sampler.peak.values()]) || undefined);
      listeners.close();
      say(`[realistic ${mode}] stopping`);
      await Promise.all(services.map((p) => (mode === 'per-role' && p.name === 'api' ? p.stop() : undefined)));
      await Promise.all(services.map((p) => p.stop(30_000)));
      let profiles: RealisticModeResult['profiles'];
      if (s.cpuProf) {
        profiles = readdirSync(opts.profileDir)
          .map((f) => ({ f, process: servicePids.get(Number(f.split('.')[3])) }))
          // Thread 0 is the main thread; tsx's module loader runs on a thread of its own (1).
          .filter((x): x is { f: string; process: string } => x.f.endsWith('.cpuprofile') && x.f.split('.')[4] === '0' && x.process !== undefined)
          .map(({ f, process }) => ({ process, ...summarizeProfile(path.join(opts.profileDir, f), s.root, 12, { fromUs, toUs }) }));
        for (const p of profiles) printProfile(p, `CPU profile (${mode}) of ${p.process} during the measured steps`);
      }
      return { mode, processes, steps, apiRssPeakMb, ...(profiles ? { profiles } : {}) };
    } finally {
      listeners.close();
      sampler.stop();
      await Promise.all(services.map((p) => p.stop()));
    }
  }
}

/** The realistic scenario beside the floor: one table per mode. */
export function printRealistic(modes: RealisticModeResult[], floorCpuPerPairMs: number): void {
  const f = (v: number | null | undefined) => (v === null || v === undefined || !Number.isFinite(v) ? '-' : v >= 100 ? v.toFixed(0) : v.toFixed(1));
  console.log(`\nRealistic scenario (10 walls × 6 sorters, 24 slots, orders of 1–3 units, releases, every worker role, WebSocket per wall).`);
  console.log(`Floor CPU per pair (2 × bare PG transaction + 2 × bare queue round trip, client included): ${f(floorCpuPerPairMs)} ms`);
  for (const m of modes) {
    console.log(`\n  ${m.mode} (${JSON.stringify(m.processes)}), API RSS peak ${f(m.apiRssPeakMb)} MB`);
    console.log(`  ${'step'.padEnd(22)}${'pairs/s'.padStart(8)}${'scan p50'.padStart(10)}${'p99'.padStart(7)}${'p99*'.padStart(7)}${'conf p99'.padStart(9)}${'5xx'.padStart(6)}${'4xx'.padStart(6)}${'svc CPU/pair'.padStart(14)}${'× floor'.padStart(9)}${'API RSS'.padStart(9)}${'load'.padStart(6)}`);
    for (const st of m.steps) {
      const fourXx = Object.entries(st.errors).reduce((a, [k, v]) => a + (/^4\d\d /.test(k) ? v : 0), 0);
      console.log(
        `  ${st.step.padEnd(22)}${f(st.pairsPerSecond).padStart(8)}${f(st.scan.p50).padStart(10)}${f(st.scan.p99).padStart(7)}${f(st.scanP99All).padStart(7)}${f(st.confirm.p99).padStart(9)}${String(st.fiveXx).padStart(6)}${String(fourXx).padStart(6)}${f(st.serviceCpuPerPairMs).padStart(14)}${f(st.serviceCpuPerPairMs / floorCpuPerPairMs).padStart(9)}${f(st.apiRssPeakMb).padStart(9)}${f(st.loadAvg1m).padStart(6)}`,
      );
      console.log(`      CPU ms per pair by process: ${Object.entries(st.cpuPerPairMs).map(([k, v]) => `${k} ${f(v)}`).join(' · ')}`);
      if (st.signIns) console.log(`      60 sign-ins at once: p50 ${f(st.signIns.latency.p50)} p99 ${f(st.signIns.latency.p99)} ms, errors ${JSON.stringify(st.signIns.errors)}; scan p99 meanwhile ${f(st.signIns.scanDuring.p99)} ms (n=${st.signIns.scanDuring.n})`);
      console.log(`      releases ${st.release.n} (p99 ${f(st.release.p99)} ms) · ${st.wsEvents} WebSocket events · ${st.webhookDeliveries} webhook deliveries · errors ${JSON.stringify(st.errors)}`);
    }
  }
}

/** Checks the issue's targets for the `npm start` mode. */
export function realisticTargets(m: RealisticModeResult | undefined, floorCpuPerPairMs: number): { target: string; measured: string; met: boolean }[] {
  if (!m) return [];
  const at100 = m.steps.find((st) => st.offeredRate === 100);
  const sustained = m.steps.filter((st) => st.pairsPerSecond >= 245 && st.scanP99All <= 50);
  const maxRate = Math.max(0, ...m.steps.map((st) => st.pairsPerSecond));
  const cpu = at100 ?? m.steps[0];
  const out = [];
  if (at100) out.push({ target: 'npm start, 100 pairs/s: zero 5xx and scan p99 ≤ 25 ms', measured: `${at100.fiveXx} 5xx, p99 ${at100.scanP99All} ms (${at100.pairsPerSecond} pairs/s)`, met: at100.fiveXx === 0 && at100.scanP99All <= 25 });
  out.push({ target: 'npm start: ≥ 250 pairs/s sustained with p99 ≤ 50 ms', measured: sustained.length ? `${sustained[0].step}: ${sustained[0].pairsPerSecond} pairs/s, p99 ${sustained[0].scanP99All} ms` : `at most ${maxRate} pairs/s; p99 ${m.steps.map((st) => `${st.step} ${st.scanP99All}`).join(', ')} ms`, met: sustained.length > 0 });
  if (cpu) out.push({ target: 'service CPU per pair ≤ 1.5× the floor', measured: `${cpu.serviceCpuPerPairMs} ms vs floor ${floorCpuPerPairMs} ms (${(cpu.serviceCpuPerPairMs / floorCpuPerPairMs).toFixed(2)}×, ${cpu.step})`, met: cpu.serviceCpuPerPairMs <= 1.5 * floorCpuPerPairMs });
  out.push({ target: 'API RSS < 200 MB at every step', measured: `peak ${m.apiRssPeakMb} MB`, met: m.apiRssPeakMb !== null && m.apiRssPeakMb < 200 });
  return out;
}

