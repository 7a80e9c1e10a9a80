import { mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { initOrm } from '../shared/db/orm';
import { createClient } from '../shared/tenancy/create-client.use-case';
import { addProducts, addWarehouse } from '../fixtures/floor-data';
import { runBench, writeLatest } from './run-bench';
import { recreateDatabase } from './bench-seed';
import { benchServiceEnv, withDatabase } from './bench-settings';
import { CpuMeter } from './cpu-usage';
import { ServiceProcess, pollUntil } from './service-processes';

/*
 * `npm run bench:imports`: a 50,000-row orders CSV (20,000 orders of 1 to 4 lines over 2,000 products),
 * as an OMS exports it, through the real API process on a database of its own (BENCH_DATABASE, default
 * sorting_bench_imports; BENCH_PORT, default 3997): a dry run, the import (every order new), and the
 * same file again (every order replaced). Each step's wall time, and the CPU time of the API process and
 * of the PostgreSQL backends serving the database (figures the machine's other load distorts less).
 */

const say = (line: string) => console.log(line);
const ROWS = Number(process.env.BENCH_IMPORT_ROWS ?? 50_000);
const PRODUCTS = 2_000;

function ordersCsv(rows: number): { text: string; orders: number } {
  const out = ['orderId,warehouseId,orderDate,priority,isDropShip,shipToName,shipToStreet1,shipToStreet2,shipToCity,shipToState,shipToPostalCode,shipToCountry,sku,qty,bins'];
  let orderId = 100_000;
  let written = 0;
  let orders = 0;
  while (written < rows) {
    orderId += 1;
    orders += 1;
    const lines = Math.min(1 + (orderId % 4), rows - written);
    const head = `${orderId},1,2026-11-${String(1 + (orderId % 28)).padStart(2, '0')}T${String(orderId % 24).padStart(2, '0')}:15:00Z,${orderId % 10 === 0 ? 'High' : 'Normal'},false,"Buyer ${orderId}, Jr.",${orderId % 900} Elm Street,${orderId % 3 === 0 ? `Apt ${orderId % 50}` : ''},Springfield,IL,627${String(orderId % 100).padStart(2, '0')},US`;
    for (let l = 0; l < lines; l++) {
      out.push(`${head},SKU-${String((orderId * 7 + l * 13) % PRODUCTS).padStart(5, '0')},${1 + (l % 3)},A-${l + 1}-${orderId % 40}`);
    }
    written += lines;
  }
  return { text: `${out.join('\r\n')}\r\n`, orders };
}

async function main(): Promise<void> {
  const root = path.resolve(__dirname, '..');
  const port = Number(process.env.BENCH_PORT ?? 3997);
  const database = process.env.BENCH_DATABASE ?? 'sorting_bench_imports';
  if (!/^sorting_bench_[a-z0-9_]+$/.test(database)) throw new Error('BENCH_DATABASE must look like sorting_bench_<name>: the bench drops it');
  const base = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/sorting';
  const dbUrl = withDatabase(base, database);

  await recreateDatabase(withDatabase(base, 'postgres'), dbUrl);
  const orm = await initOrm(dbUrl, 2);
  try {
    const em = orm.em.fork();
    const client = await createClient(em.fork(), { name: 'Import Bench', team: 'import-bench', adminEmail: 'admin@imports.example.com', adminPassword: 'bench-admin-password', hashRounds: 4 });
    await addWarehouse(em.fork(), client.clientId, { id: 1 });
    await addProducts(em.fork(), client.clientId, Array.from({ length: PRODUCTS }, (_, i) => ({ sku: `SKU-${String(i).padStart(5, '0')}` })));
  } finally {
    await orm.close();
  }
  const file = ordersCsv(ROWS);
  const bytes = Buffer.byteLength(file.text);
  say(`[setup] ${database}: ${PRODUCTS} products; the file: ${ROWS} rows, ${file.orders} orders, ${(bytes / 1024 / 1024).toFixed(1)} MB; API on port ${port}`);

  const resultsDir = path.join(root, 'bench', 'results');
  mkdirSync(resultsDir, { recursive: true });
  const env = benchServiceEnv(port, dbUrl, `${database}-prefix`);
  const api = new ServiceProcess('api', root, { command: path.join(root, 'node_modules/.bin/tsx'), args: ['services/api/main.ts'], wrapped: true }, env, path.join(resultsDir, 'imports-api.log'));
  const url = `http://127.0.0.1:${port}`;
  try {
    await pollUntil('the API /readyz', async () => (await fetch(`${url}/readyz`).catch(() => null))?.status === 200, {
      timeoutMs: 60_000,
      abort: () => (api.running ? undefined : `the API exited:\n${api.lastLines()}`),
    });
    const token = await fetch(`${url}/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin@imports.example.com', password: 'bench-admin-password' }) });
    const auth = `Bearer ${((await token.json()) as { access_token: string }).access_token}`;
    say(`[imports] ${os.cpus().length} CPUs, load ${os.loadavg()[0].toFixed(2)}`);

    const meter = new CpuMeter(dbUrl, database, () => ({ api: api.nodePid() }));
    const figures: Record<string, { wallMs: number; cpuMs: Record<string, number>; status: number; report: unknown }> = {};
    for (const [step, query] of [['dry run', '?dryRun=true'], ['import (all new)', ''], ['import again (all replaced)', '']] as const) {
      const cpu0 = await meter.snapshot();
      const t0 = performance.now();
      const res = await fetch(`${url}/api/v1/admin/orders/import${query}`, { method: 'POST', headers: { 'content-type': 'text/csv', authorization: auth }, body: file.text });
      const report = (await res.json()) as { problemCount?: number; created?: number; updated?: number; imported?: boolean };
      const wallMs = Math.round(performance.now() - t0);
      const cpu = CpuMeter.used(cpu0, await meter.snapshot());
      figures[step] = { wallMs, cpuMs: cpu, status: res.status, report: { ...report, problems: undefined } };
      say(
        `[imports] ${step}: HTTP ${res.status} in ${(wallMs / 1000).toFixed(2)} s (load ${os.loadavg()[0].toFixed(2)}), CPU: API ${((cpu.api ?? 0) / 1000).toFixed(2)} s, ` +
          `PostgreSQL ${((cpu.postgres ?? 0) / 1000).toFixed(2)} s; imported ${report.imported}, created ${report.created}, updated ${report.updated}, problems ${report.problemCount}`,
      );
      if (res.status !== 200 || report.problemCount) throw new Error(`the import was refused: ${JSON.stringify(report).slice(0, 500)}`);
    }
    writeLatest(resultsDir, 'imports-latest.json', { rows: ROWS, orders: file.orders, bytes, figures });
  } finally {
    await api.stop();
  }
}

runBench('import bench', main);
