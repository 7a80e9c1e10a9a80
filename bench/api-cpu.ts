import { fork, type ChildProcess } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { Client as PgClient } from 'pg';
import { BenchHttp } from './http-client';

/*
 * The API's own CPU per scan+confirm pair: the real API of the tests (startTestApi, a floor from
 * test/support/sorting-floor.ts) in a child process, its command client answering the scan and the
 * confirm at once (no queue, no worker: the sessions are started by the in-process walls of
 * test/support/in-process-wall.ts), driven from this process by `API_CPU_CONNECTIONS` sorters on
 * kept-alive connections, each sending its next scan on the confirm's answer. Per round: the child's
 * own CPU (process.cpuUsage, asked over IPC before and after) per pair. The skeleton's API and the
 * service's differ in everything but this path; the bench's figures carry the queue, the hubs and the
 * load around it.
 *
 *   flock /tmp/bench.lock npx tsx bench/api-cpu.ts
 *
 * Settings: API_CPU_PAIRS (per round, 2000), API_CPU_ROUNDS (7), API_CPU_CONNECTIONS (20),
 * BENCH_DATABASE (sorting_bench_api_cpu: dropped and made anew), BENCH_QUEUE_PREFIX, REDIS_URL.
 * API_CPU_PROF=<dir>: the child runs with --cpu-prof into that directory.
 */

const PG_BASE = process.env.TEST_PG_BASE ?? 'postgres://postgres@127.0.0.1:5432';
const DATABASE = process.env.BENCH_DATABASE ?? 'sorting_bench_api_cpu';
const PAIRS = Number(process.env.API_CPU_PAIRS ?? 2000);
const ROUNDS = Number(process.env.API_CPU_ROUNDS ?? 7);
const CONNECTIONS = Number(process.env.API_CPU_CONNECTIONS ?? 20);

interface Sorter {
  auth: string;
  sessionToken: string;
}

type FromChild = { ready: { port: number; sorters: Sorter[]; promiseHooks: boolean } } | { cpu: NodeJS.CpuUsage; promiseHooks: boolean };

function childEnv(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    API_CPU_CHILD: '1',
    NODE_ENV: 'test',
    DATABASE_URL: `${PG_BASE}/${DATABASE}`,
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    QUEUE_PREFIX: process.env.BENCH_QUEUE_PREFIX ?? 'api-cpu',
    LOG_LEVEL: 'silent',
    JWT_SECRET: 'bench-secret-bench-secret-bench-secret',
    SEED_DEMO: 'false',
    PASSWORD_HASH_ROUNDS: '4',
    COMMAND_MAX_WAIT_MS: '10000',
  };
}

async function child(): Promise<void> {
  const { promiseHooksOn } = await import('../shared/db/async-storage');
  const { startTestApi } = await import('../test/support/test-api');
  const { buildFloor, connect } = await import('../test/support/sorting-floor');
  const { startInProcessWalls } = await import('../test/support/in-process-wall');
  const api = await startTestApi();
  // Six sorters at most on a wall: five a wall here, on walls of tenants of their own.
  const floors = [];
  for (let i = 0; i < Math.ceil(CONNECTIONS / 5); i++) floors.push(await buildFloor(api, { slots: 24, maxSorters: 6 }));
  const walls = await startInProcessWalls();
  const commands = api.deps.commands;
  commands.execute = ((name: string, data: unknown) => walls.commands.execute(name as never, data as never)) as typeof commands.execute;
  const sorters: Sorter[] = [];
  for (let i = 1; i <= CONNECTIONS; i++) {
    const floor = floors[(i - 1) % floors.length];
    const { auth } = await floor.sorter(i);
    const res = await connect(api, floor, auth);
    if (res.status >= 300) throw new Error(`connect: ${res.status} ${JSON.stringify(res.body)}`);
    sorters.push({ auth, sessionToken: res.body.token as string });
  }
  await walls.close();
  // The scan and the confirm answered at once, as a worker would answer them.
  let next = 1_000_000;
  const slot = floors[0].slots[0];
  const item = (id: number, wallId: number, confirmed: boolean) => ({
    id,
    wallId,
    crc: slot.crc,
    sorterBarcode: `A-${slot.crc}`,
    position: slot.position,
    status: confirmed ? 'Confirmed' : 'Pending',
    units: 1,
    confirmedUnits: confirmed ? 1 : 0,
    orderId: 1,
    sku: 'SKU-A',
    barcode: 'SKU-A',
    barcodeInputMethod: 'Scanned',
    userId: 1,
    color: 'Red',
    colorHex: '#FF0000',
    requiredUnits: 1,
    remainingUnits: 0,
    createdAt: new Date().toISOString(),
    confirmedAt: confirmed ? new Date().toISOString() : null,
    cancelledAt: null,
    requiresSerial: false,
    serial: null,
  });
  commands.execute = (async (name: string, data: { wallId: number; itemId?: number }) => {
    if (name === 'item.scan') return item(next++, data.wallId, false);
    if (name === 'item.confirm') return item(data.itemId!, data.wallId, true);
    throw new Error(`no answer for ${name} here`);
  }) as unknown as typeof commands.execute;
  const { createExpressServer } = await import('../services/api/http/express-server');
  const server = createExpressServer(api.app);
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const send = (m: FromChild) => process.send!(m);
  // The bench gone (killed, failed): so is its API.
  process.on('disconnect', () => process.exit(0));
  // API_CPU_TOGGLE_HOOKS: a storage entered (and disabled again) on the parent's word, to measure the promise hooks alone.
  const { AsyncLocalStorage } = await import('node:async_hooks');
  let pinned: InstanceType<typeof AsyncLocalStorage<number>> | null = null;
  process.on('message', (m: string) => {
    if (m === 'hooks-on' && !pinned) {
      pinned = new AsyncLocalStorage<number>();
      pinned.enterWith(1);
    }
    if (m === 'hooks-off' && pinned) {
      pinned.disable();
      pinned = null;
    }
    if (m === 'cpu') void promiseHooksOn().then((on) => send({ cpu: process.cpuUsage(), promiseHooks: on }));
    if (m === 'stop') {
      server.closeAllConnections();
      server.close();
      void api.close().then(() => process.exit(0));
    }
  });
  send({ ready: { port: (server.address() as AddressInfo).port, sorters, promiseHooks: await promiseHooksOn() } });
}

async function freshDatabase(): Promise<void> {
  const pg = new PgClient({ connectionString: `${PG_BASE}/postgres` });
  await pg.connect();
  await pg.query(`drop database if exists "${DATABASE}" with (force)`);
  await pg.query(`create database "${DATABASE}"`);
  await pg.end();
  const { initOrm, migrate } = await import('../shared/db/orm');
  const orm = await initOrm(`${PG_BASE}/${DATABASE}`, 2);
  await migrate(orm);
  await orm.close();
}

function ask(proc: ChildProcess): Promise<Extract<FromChild, { cpu: unknown }>> {
  return new Promise((resolve) => {
    const on = (m: FromChild) => {
      if ('cpu' in m) {
        proc.off('message', on);
        resolve(m);
      }
    };
    proc.on('message', on);
    proc.send('cpu');
  });
}

async function parent(): Promise<void> {
  await freshDatabase();
  const proc = fork(__filename, [], {
    env: childEnv(),
    execArgv: [...process.execArgv, ...(process.env.API_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.API_CPU_PROF}`] : [])],
  });
  const ready = await new Promise<Extract<FromChild, { ready: unknown }>['ready']>((resolve, reject) => {
    proc.once('exit', (code) => reject(new Error(`the API child exited (${code})`)));
    proc.on('message', (m: FromChild) => {
      if ('ready' in m) resolve(m.ready);
    });
  });
  const client = new BenchHttp('127.0.0.1', ready.port, CONNECTIONS);
  let failures = 0;
  const pair = async (s: Sorter) => {
    const scan = await client.request('POST', '/api/v1/sort-box-items', { auth: s.auth, body: { sessionToken: s.sessionToken, barcode: 'SKU-A' } });
    if (scan.status !== 201 && scan.status !== 200) {
      failures++;
      if (failures < 3) console.error('scan', scan.status, JSON.stringify(scan.body));
      return;
    }
    const it = scan.body as { id: number; crc: string };
    const confirm = await client.request('PATCH', `/api/v1/sort-box-items/${it.id}/confirm`, { auth: s.auth, body: { barcode: `A-${it.crc}` } });
    if (confirm.status !== 200) {
      failures++;
      if (failures < 3) console.error('confirm', confirm.status, JSON.stringify(confirm.body));
    }
  };
  const round = async (pairs: number) => {
    let left = pairs;
    await Promise.all(
      ready.sorters.map(async (s) => {
        while (left-- > 0) await pair(s);
      }),
    );
  };
  await round(Math.min(PAIRS, 1000)); // warm-up
  const perPair: number[] = [];
  let hooks = ready.promiseHooks;
  const toggle = process.env.API_CPU_TOGGLE_HOOKS === '1';
  const byHooks: Record<'on' | 'off', number[]> = { on: [], off: [] };
  for (let r = 0; r < ROUNDS; r++) {
    if (toggle) proc.send(r % 2 === 0 ? 'hooks-off' : 'hooks-on');
    const before = await ask(proc);
    const t0 = performance.now();
    await round(PAIRS);
    const ms = performance.now() - t0;
    const after = await ask(proc);
    hooks = hooks || after.promiseHooks;
    const cpuUs = after.cpu.user - before.cpu.user + after.cpu.system - before.cpu.system;
    byHooks[after.promiseHooks && before.promiseHooks ? 'on' : 'off'].push(cpuUs / PAIRS);
    perPair.push(cpuUs / PAIRS);
    console.log(`round ${r + 1}: ${(cpuUs / PAIRS).toFixed(0)} us of API CPU per pair, ${((PAIRS / ms) * 1000).toFixed(0)} pairs/s`);
  }
  const sorted = [...perPair].sort((a, b) => a - b);
  const mean = perPair.reduce((a, b) => a + b, 0) / perPair.length;
  console.log(
    `API CPU per pair: median ${sorted[Math.floor(sorted.length / 2)].toFixed(0)} us, mean ${mean.toFixed(0)}, min ${sorted[0].toFixed(0)} ` +
      `(${PAIRS} pairs × ${ROUNDS} rounds on ${CONNECTIONS} connections; failures ${failures}; promise hooks ${hooks ? 'on' : 'off'})`,
  );
  if (toggle) {
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]?.toFixed(0);
    console.log(`promise hooks off: median ${med(byHooks.off)} us (${byHooks.off.map((x) => x.toFixed(0)).join(', ')}); on: median ${med(byHooks.on)} us (${byHooks.on.map((x) => x.toFixed(0)).join(', ')})`);
  }
  client.close();
  proc.send('stop');
  await new Promise((r) => proc.once('exit', r));
}

(process.env.API_CPU_CHILD ? child() : parent()).catch((err) => {
  console.error(err);
  process.exit(1);
});
