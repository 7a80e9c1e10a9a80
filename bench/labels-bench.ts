import { mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { initOrm } from '../shared/db/orm';
import { createClient } from '../shared/tenancy/create-client.use-case';
import { addOrders, addProducts, addWarehouse } from '../fixtures/floor-data';
import { runBench, writeLatest } from './run-bench';
import { recreateDatabase } from './bench-seed';
import { benchServiceEnv, withDatabase } from './bench-settings';
import { BenchHttp } from './http-client';
import { labelBenchSettings, runLabelBench } from './label-load';
import { ServiceProcess, pollUntil } from './service-processes';

/*
 * `npm run bench:labels`: license plates alone, through the real API process, on a database of its own
 * (BENCH_LABELS_DATABASE, default sorting_bench_labels), so it can run next to other work. `npm run
 * bench` runs the same steps after the sorting steps.
 */

const say = (line: string) => console.log(line);
const ORDERS = 500;

async function main(): Promise<void> {
  const root = path.resolve(__dirname, '..');
  const port = Number(process.env.BENCH_PORT ?? 3998);
  const database = process.env.BENCH_LABELS_DATABASE ?? 'sorting_bench_labels';
  if (!/^sorting_bench_[a-z0-9_]+$/.test(database)) throw new Error('BENCH_LABELS_DATABASE must look like sorting_bench_<name>: the bench drops it');
  const base = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/sorting';
  const dbUrl = withDatabase(base, database);
  const opts = labelBenchSettings();

  await recreateDatabase(withDatabase(base, 'postgres'), dbUrl);
  const orm = await initOrm(dbUrl, 2);
  let orderIds: number[];
  try {
    const em = orm.em.fork();
    const client = await createClient(em.fork(), { name: 'Label Bench', team: 'label-bench', adminEmail: 'admin@labels.example.com', adminPassword: 'bench-admin-password', hashRounds: 4 });
    await addProducts(em.fork(), client.clientId, [{ sku: 'L-1' }, { sku: 'L-2' }, { sku: 'L-3' }]);
    const wh = await addWarehouse(em.fork(), client.clientId, { id: 1 });
    const orders = Array.from({ length: ORDERS }, (_, i) => ({
      id: i + 1,
      warehouseId: wh.id,
      items: [{ sku: 'L-1', qty: 1 + (i % 3) }, { sku: 'L-2', qty: 2 }, { sku: 'L-3', qty: 1 }],
    }));
    await addOrders(em.fork(), client.clientId, orders);
    orderIds = orders.map((o) => o.id);
  } finally {
    await orm.close();
  }
  say(`[setup] ${database}: migrated, ${ORDERS} orders; starting the API on port ${port}`);

  const resultsDir = path.join(root, 'bench', 'results');
  mkdirSync(resultsDir, { recursive: true });
  const env = benchServiceEnv(port, dbUrl, `${database}-prefix`);
  const api = new ServiceProcess('api', root, { command: path.join(root, 'node_modules/.bin/tsx'), args: [...(process.env.BENCH_LABELS_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_LABELS_CPU_PROF] : []), 'services/api/main.ts'], wrapped: true }, env, path.join(resultsDir, 'labels-api.log'));
  const http = new BenchHttp('127.0.0.1', port);
  try {
    await pollUntil('the API /readyz', async () => (await http.request('GET', '/readyz', { timeoutMs: 2000 })).status === 200, {
      timeoutMs: 60_000,
      abort: () => (api.running ? undefined : `the API exited:\n${api.lastLines()}`),
    });
    const token = await http.request('POST', '/token', { body: { username: 'admin@labels.example.com', password: 'bench-admin-password' } });
    if (token.status !== 200) throw new Error(`sign-in failed: ${token.status}`);
    const auth = `Bearer ${(token.body as { access_token: string }).access_token}`;
    say(`[labels] ${opts.concurrency} clients, ${opts.seconds} s per format, ${os.cpus().length} CPUs, load ${os.loadavg()[0].toFixed(2)}`);
    const figures = await runLabelBench(http, auth, orderIds, { ...opts, apiPid: api.nodePid() }, say);
    writeLatest(resultsDir, 'labels-latest.json', { figures });
  } finally {
    http.close();
    await api.stop();
  }
}

runBench('label bench', main);
