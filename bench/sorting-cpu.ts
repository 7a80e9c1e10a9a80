import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client as PgClient } from 'pg';
import IORedis from 'ioredis';
import { initOrm } from '../shared/db/orm';
import { createClient } from '../shared/tenancy/create-client.use-case';
import { addEmployee, addOrders, addProducts, addSlots, addWall, addWarehouse } from '../fixtures/floor-data';
import { createLogger } from '../shared/logging/logger';
import { createCommandClient } from '../shared/commands/command-client';
import { recreateDatabase } from './bench-seed';
import { cpuMs } from './cpu-usage';
import { startOwnRedis } from './own-redis';
import { pollUntil } from './service-processes';

/*
 * `npx tsx bench/sorting-cpu.ts`: the sorting worker process's CPU and Redis commands per scan+confirm
 * pair (docs/benchmarks.md, "The sorting worker per command"). A `sorting` worker process
 * (`workers/main.ts sorting`) holds every partition of a Redis of the bench's own; this process sends
 * the commands through the service's own command client (shared/commands/command-client.ts, what the
 * API sends them with), SORTING_SORTERS sorters over SORTING_WALLS walls, each sorter a closed loop of
 * scan then confirm (with SORTING_RATE, the pairs are sent at that rate over all sorters, each sorter
 * one pair at a time). Each wall has an order per SKU large enough never to fill, so every scan after a
 * SKU's first goes to the slot already holding its order, the scans that read PostgreSQL only at the
 * start. Per round: the worker starts on the database, the sorters connect, SORTING_WARMUP pairs, then
 * SORTING_PAIRS pairs measured: the worker's CPU (/proc, user + system), its read and write system
 * calls and its main thread's wake-ups (voluntary context switches), its PostgreSQL backends' CPU,
 * Redis's CPU and `INFO commandstats` (every call, those run inside scripts too) per pair, the Redis
 * calls of this producer side included (the API's add). SORTING_ROOTS (comma-separated checkouts,
 * default this one) alternate the worker's code round by round, SORTING_ROUNDS times each: A/B on one
 * database and one Redis.
 *
 * SORTING_PROFILE_DIR=<dir> writes a V8 CPU profile of the worker there (--cpu-prof; it adds CPU).
 *
 *   SORTING_SORTERS (60), SORTING_WALLS (10), SORTING_PAIRS (3000), SORTING_WARMUP (300), SORTING_ROUNDS (3),
 *   SORTING_ROOTS (.), SORTING_DATABASE (sorting_bench_sorting_cpu), DATABASE_URL (the server)
 */

const SORTERS = Number(process.env.SORTING_SORTERS ?? 60);
const WALLS = Number(process.env.SORTING_WALLS ?? 10);
const PAIRS = Number(process.env.SORTING_PAIRS ?? 3000);
const WARMUP = Number(process.env.SORTING_WARMUP ?? 300);
const ROUNDS = Number(process.env.SORTING_ROUNDS ?? 3);
/** Pairs per second offered over all sorters; 0: each sorter sends its next pair on the answer (a closed loop). */
const RATE = Number(process.env.SORTING_RATE ?? 0);
const ROOTS = (process.env.SORTING_ROOTS ?? path.resolve(__dirname, '..')).split(',').map((r) => path.resolve(r));
const DB = process.env.SORTING_DATABASE ?? 'sorting_bench_sorting_cpu';
const SKUS = 5;
const PARTITIONS = 8;
const PREFIX = 'sorting-cpu-bench';
const base = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/sorting');
const admin = new URL(base.toString());
admin.pathname = '/postgres';
base.pathname = `/${DB}`;
const databaseUrl = base.toString();

interface Floor {
  clientId: number;
  walls: number[];
  sorters: { userId: number; wallId: number }[];
  upcs: string[];
}

async function seed(): Promise<Floor> {
  await recreateDatabase(admin.toString(), databaseUrl);
  const orm = await initOrm(databaseUrl, 2);
  try {
    const em = orm.em.fork();
    const { clientId } = await createClient(em, { name: 'Sorting CPU', team: 'sorting-cpu', adminEmail: 'admin@sorting-cpu.bench', adminPassword: 'sorting-cpu-1', hashRounds: 4 });
    const upcs = Array.from({ length: SKUS }, (_, k) => `8300000000${String(k).padStart(2, '0')}`);
    await addProducts(em, clientId, upcs.map((upc, k) => ({ sku: `SKU-${k}`, upc })));
    const walls: number[] = [];
    let orderId = 0;
    for (let w = 0; w < WALLS; w++) {
      const wh = await addWarehouse(em, clientId, { id: w + 1, name: `DC ${w + 1}` });
      await addOrders(em, clientId, upcs.map((_, k) => ({ id: ++orderId, warehouseId: wh.id, items: [{ sku: `SKU-${k}`, qty: 1_000_000 }] })));
      const wall = await addWall(em, clientId, { name: `Wall ${w + 1}`, warehouseId: wh.id, maxSorters: Math.ceil(SORTERS / WALLS) });
      await addSlots(em, clientId, wall.id, 24);
      walls.push(wall.id);
    }
    const sorters: Floor['sorters'] = [];
    for (let s = 0; s < SORTERS; s++) {
      const { id } = await addEmployee(em, clientId, { roles: ['Sorter'], email: `sorter${s}@sorting-cpu.bench` });
      sorters.push({ userId: id, wallId: walls[s % WALLS]! });
    }
    return { clientId, walls, sorters, upcs };
  } finally {
    await orm.close();
  }
}

async function commandStats(redis: IORedis): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const line of (await redis.info('commandstats')).split('\n')) {
    const m = /^cmdstat_([^:]+):calls=(\d+)/.exec(line.trim());
    if (m) out.set(m[1]!, Number(m[2]));
  }
  return out;
}

/** The process's read and write system calls (all its threads) and its main thread's voluntary context switches (its wake-ups). */
function syscalls(pid: number): { reads: number; writes: number; wakeups: number } {
  const io = readFileSync(`/proc/${pid}/io`, 'utf8');
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (text: string, name: string) => Number(new RegExp(`^${name}:\\s*(\\d+)`, 'm').exec(text)?.[1] ?? NaN);
  return { reads: field(io, 'syscr'), writes: field(io, 'syscw'), wakeups: field(status, 'voluntary_ctxt_switches') };
}

async function workerBackends(pg: PgClient): Promise<number[]> {
  const { rows } = await pg.query<{ pid: number }>(
    `select pid from pg_stat_activity where datname = $1 and application_name in ('sorting:wall-actor', 'sorting:worker:sorting')`,
    [DB],
  );
  return rows.map((r) => r.pid);
}

async function round(floor: Floor, root: string, redisUrl: string, redisPid: number, pg: PgClient): Promise<Record<string, unknown>> {
  const redis = new IORedis(redisUrl);
  await redis.flushall();
  const env = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    QUEUE_PREFIX: PREFIX,
    QUEUE_PARTITIONS: String(PARTITIONS),
    LOG_LEVEL: 'info',
    NODE_ENV: 'production',
    JWT_SECRET: 'sorting-cpu-bench-secret-not-for-production',
  };
  const profile = process.env.SORTING_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.SORTING_PROFILE_DIR}`] : [];
  const child: ChildProcess = spawn(process.execPath, [...profile, '--import', 'tsx', 'workers/main.ts', 'sorting'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (b: Buffer) => (output += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (output += b.toString()));
  const log = createLogger('warn', 'sorting-cpu-bench');
  const client = createCommandClient({ redisUrl, prefix: PREFIX, partitions: PARTITIONS, commandTimeoutMs: 30_000 }, log, null);
  try {
    await pollUntil('the sorting worker to hold its partitions', async () => output.includes('command workers started'), { timeoutMs: 120_000 });
    const roles = ['Sorter' as const];
    const sessions = await Promise.all(
      floor.sorters.map(async (s) => ({ ...s, token: (await client.execute('session.start', { clientId: floor.clientId, wallId: s.wallId, userId: s.userId, roles, picklistId: null })).token })),
    );
    let sent = 0;
    let done = 0;
    let refused = 0;
    let mark: (() => void) | null = null;
    let markAt = 0;
    const total = WARMUP + PAIRS;
    const start = Date.now();
    const loop = async (s: (typeof sessions)[number], k: number) => {
      for (let i = k; sent < total; i++) {
        const due = start + (sent * 1000) / RATE;
        sent++;
        if (RATE && due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
        try {
          const item = await client.execute('item.scan', {
            clientId: floor.clientId, wallId: s.wallId, userId: s.userId, roles, sessionToken: s.token,
            barcode: floor.upcs[i % floor.upcs.length]!, barcodeInputMethod: 'Scanned', idempotencyKey: null,
          });
          await client.execute('item.confirm', { clientId: floor.clientId, wallId: s.wallId, userId: s.userId, roles, itemId: item.id, units: 1, barcode: null, serial: null });
        } catch {
          refused++;
        }
        done++;
        if (done === markAt) mark?.();
      }
    };
    const warmed = new Promise<void>((r) => {
      markAt = WARMUP;
      mark = r;
    });
    const loops = Promise.all(sessions.map((s, k) => loop(s, k)));
    await warmed;
    const backends = await workerBackends(pg);
    const sys0 = syscalls(child.pid!);
    const cpu0 = cpuMs(child.pid)!;
    const pg0 = backends.reduce((a, p) => a + (cpuMs(p) ?? 0), 0);
    const redis0 = cpuMs(redisPid)!;
    const stats0 = await commandStats(redis);
    const done0 = done;
    const t0 = Date.now();
    const finished = new Promise<void>((r) => {
      markAt = done0 + PAIRS - SORTERS; // every loop still running at the end is within its last pair
      mark = r;
    });
    await finished;
    const pairs = done - done0;
    const seconds = (Date.now() - t0) / 1000;
    const cpu1 = cpuMs(child.pid)!;
    const sys1 = syscalls(child.pid!);
    const pg1 = backends.reduce((a, p) => a + (cpuMs(p) ?? 0), 0);
    const redis1 = cpuMs(redisPid)!;
    const stats1 = await commandStats(redis);
    await loops;
    const per = (x: number) => Math.round((x / pairs) * 1000) / 1000;
    const calls: Record<string, number> = {};
    let allCalls = 0;
    for (const [cmd, n] of stats1) {
      const d = n - (stats0.get(cmd) ?? 0);
      if (d <= 0 || cmd === 'info') continue;
      calls[cmd] = per(d);
      allCalls += d;
    }
    const sorted = Object.fromEntries(Object.entries(calls).sort((a, b) => b[1] - a[1]));
    await Promise.all(sessions.map((s) => client.execute('session.stop', { clientId: floor.clientId, wallId: s.wallId, userId: s.userId, roles, token: s.token }).catch(() => undefined)));
    return {
      root,
      pairs,
      refused,
      pairsPerSecond: Math.round(pairs / seconds),
      load: os.loadavg().map((l) => Math.round(l * 100) / 100),
      workerMsPerPair: per(cpu1 - cpu0),
      workerReadsPerPair: per(sys1.reads - sys0.reads),
      workerWritesPerPair: per(sys1.writes - sys0.writes),
      workerWakeupsPerPair: per(sys1.wakeups - sys0.wakeups),
      workerPgMsPerPair: per(pg1 - pg0),
      redisMsPerPair: per(redis1 - redis0),
      redisCallsPerPair: per(allCalls),
      calls: sorted,
    };
  } finally {
    await client.close();
    child.kill('SIGTERM');
    await pollUntil('the worker to exit', async () => child.exitCode !== null || child.signalCode !== null, { timeoutMs: 20_000 }).catch(() => child.kill('SIGKILL'));
    redis.disconnect();
  }
}

async function main(): Promise<void> {
  const floor = await seed();
  const own = await startOwnRedis();
  const pg = new PgClient({ connectionString: databaseUrl });
  await pg.connect();
  try {
    for (let r = 0; r < ROUNDS; r++) {
      for (const root of ROOTS) console.log(JSON.stringify({ round: r + 1, ...(await round(floor, root, own.url, own.pid, pg)) }));
    }
  } finally {
    await pg.end();
    own.stop();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  process.exit(1);
});
