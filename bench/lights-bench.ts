import { mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import mqtt from 'mqtt';
import { initOrm } from '../shared/db/orm';
import { createClient } from '../shared/tenancy/create-client.use-case';
import { addEmployee, addOrders, addProducts, addSlots, addWall, addWarehouse } from '../fixtures/floor-data';
import { startOwnMosquitto } from '../fixtures/local-servers';
import { runBench, writeLatest } from './run-bench';
import { recreateDatabase } from './bench-seed';
import { benchServiceEnv, withDatabase } from './bench-settings';
import { BenchHttp } from './http-client';
import { ServiceProcess, pollUntil } from './service-processes';
import { summarize } from './stats';

/*
 * `npm run bench:lights`: scan committed → MQTT publish of the slot's light, at BENCH_LIGHTS_RATE pairs
 * per second (default 100: a scan and its confirm), on a database (BENCH_DATABASE, sorting_bench_lights)
 * and a Mosquitto of its own. The API and a sorting worker run as their own processes, the outbox relay
 * and the light gateway in one (as `npm start`'s pipeline process runs them: the gateway takes the
 * relay's steps in memory); BENCH_LIGHTS_PROCESSES=own runs the relay and the gateway apart. A subscriber on the broker times, for every scan, the front light's message of that
 * slot (lit) against the moment the scan's HTTP answer arrived and the moment it was sent: the commit
 * lies between the two, so light − answer is a lower bound of the commit-to-publish latency (below
 * zero when the light beats the answer) and light − send an upper bound. docs/lights.md says how to
 * read them.
 */

const say = (line: string) => console.log(line);
const WALLS = 10;
const SORTERS = 6;
const SLOTS = 24;
const WAIT_LIGHT_MS = 5_000;

async function main(): Promise<void> {
  const root = path.resolve(__dirname, '..');
  const seconds = Number(process.env.BENCH_SECONDS ?? 30);
  const rate = Number(process.env.BENCH_LIGHTS_RATE ?? 100);
  const port = Number(process.env.BENCH_PORT ?? 3997);
  const database = process.env.BENCH_DATABASE ?? 'sorting_bench_lights';
  const base = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/sorting';
  const dbUrl = withDatabase(base, database);

  await recreateDatabase(withDatabase(base, 'postgres'), dbUrl);
  const orm = await initOrm(dbUrl, 2);
  const sorters: { email: string; password: string; wallId: number; sku: string }[] = [];
  try {
    const em = orm.em.fork();
    const client = await createClient(em.fork(), { name: 'Lights Bench', team: 'lights-bench', adminEmail: 'admin@lights.example.com', adminPassword: 'bench-admin-password', hashRounds: 4 });
    const skus = Array.from({ length: SORTERS }, (_, i) => `LB-${i + 1}`);
    await addProducts(em.fork(), client.clientId, skus.map((sku) => ({ sku })));
    for (let w = 1; w <= WALLS; w++) {
      // A warehouse per wall, an order per sorter holding far more units than a run sorts: every pair
      // of a sorter goes to the same slot, which lights and goes dark again.
      const wh = await addWarehouse(em.fork(), client.clientId, { id: w });
      await addOrders(em.fork(), client.clientId, skus.map((sku, i) => ({ id: w * 100 + i, warehouseId: wh.id, items: [{ sku, qty: 100_000 }] })));
      const wall = await addWall(em.fork(), client.clientId, { name: `Lights ${w}`, warehouseId: wh.id });
      await addSlots(em.fork(), client.clientId, wall.id, SLOTS);
      for (let s = 0; s < SORTERS; s++) {
        const e = await addEmployee(em.fork(), client.clientId, { roles: ['Sorter'], email: `sorter-${w}-${s}@lights.example.com`, password: 'bench-sorter-1' });
        sorters.push({ email: e.email, password: e.password, wallId: wall.id, sku: skus[s]! });
      }
    }
  } finally {
    await orm.close();
  }

  const broker = await startOwnMosquitto();
  const brokerUrl = broker.url;
  say(`[setup] ${database}: ${WALLS} walls × ${SORTERS} sorters; Mosquitto on ${broker.port}; starting the API, sorting and pipeline (outbox, lights) processes`);

  const resultsDir = path.join(root, 'bench', 'results');
  mkdirSync(resultsDir, { recursive: true });
  const env = benchServiceEnv(port, dbUrl, 'sorting-bench-lights', { MQTT_URL: brokerUrl, COMMAND_MAX_WAIT_MS: '10000' });
  const tsx = path.join(root, 'node_modules/.bin/tsx');
  const start = (name: string, args: string[]) => new ServiceProcess(name, root, { command: tsx, args, wrapped: true }, env, path.join(resultsDir, `lights-${name}.log`));
  const pipeline = process.env.BENCH_LIGHTS_PROCESSES === 'own' ? [start('outbox', ['workers/main.ts', 'outbox']), start('lights', ['workers/main.ts', 'lights'])] : [start('pipeline', ['workers/main.ts', 'outbox,lights'])];
  const services = [start('api', ['services/api/main.ts']), start('sorting', ['workers/main.ts', 'sorting']), ...pipeline];
  const http = new BenchHttp('127.0.0.1', port);
  const sub = mqtt.connect(brokerUrl, { clientId: `bench-lights-${process.pid}` });
  try {
    await pollUntil('the API /readyz', async () => (await http.request('GET', '/readyz', { timeoutMs: 2000 })).status === 200, {
      timeoutMs: 60_000,
      abort: () => services.find((s) => !s.running) && `a service exited:\n${services.map((s) => s.lastLines()).join('\n')}`,
    });
    // Every front light message as it arrives: per slot (by crc), the times it went on.
    const litAt = new Map<string, number[]>();
    const waiters = new Map<string, () => void>();
    sub.on('message', (_topic, payload) => {
      const at = performance.now();
      if (!payload.length) return;
      const light = JSON.parse(payload.toString('utf8')) as { on: boolean; crc: string };
      if (!light.on) return;
      const list = litAt.get(light.crc) ?? [];
      list.push(at);
      litAt.set(light.crc, list);
      waiters.get(light.crc)?.();
    });
    await sub.subscribeAsync('sorting/+/walls/+/slots/+/front', { qos: 1 });

    const people = [];
    for (const s of sorters) {
      const t = await http.request('POST', '/token', { body: { username: s.email, password: s.password } });
      const auth = `Bearer ${(t.body as { access_token: string }).access_token}`;
      const session = await http.request('POST', `/api/v1/walls/${s.wallId}/sessions`, { auth, body: {} });
      if (session.status !== 200) throw new Error(`connect failed: ${session.status} ${session.code}`);
      people.push({ ...s, auth, token: (session.body as { token: string }).token });
    }
    say(`[lights] ${rate} pairs/s for ${seconds} s across ${people.length} sorters, ${os.cpus().length} CPUs, load ${os.loadavg()[0].toFixed(2)}`);

    // Commit happens between the scan's send and its answer: light − answer is a lower bound of the
    // commit-to-publish latency, light − send an upper bound.
    const latencies: number[] = [];
    const fromSend: number[] = [];
    let pairs = 0;
    let missed = 0;
    let failed = 0;
    const deadline = performance.now() + seconds * 1000;
    const interval = (people.length / rate) * 1000;
    await Promise.all(
      people.map(async (p, i) => {
        let next = performance.now() + (i * interval) / people.length;
        while (next < deadline) {
          const wait = next - performance.now();
          if (wait > 0) await new Promise((r) => setTimeout(r, wait));
          next += interval;
          const sentAt = performance.now();
          const scan = await http.request('POST', '/api/v1/sort-box-items', { auth: p.auth, body: { sessionToken: p.token, barcode: p.sku } });
          const answeredAt = performance.now();
          if (scan.status !== 200) {
            failed++;
            continue;
          }
          const { id, crc } = scan.body as { id: number; crc: string };
          // The light of this scan: the first "on" of its slot after the scan was sent (its slot was dark).
          const lit = await new Promise<number | null>((resolve) => {
            const find = () => (litAt.get(crc) ?? []).find((t) => t > sentAt);
            const found = find();
            if (found !== undefined) return resolve(found);
            const timer = setTimeout(() => (waiters.delete(crc), resolve(null)), WAIT_LIGHT_MS);
            waiters.set(crc, () => {
              const t = find();
              if (t === undefined) return;
              clearTimeout(timer);
              waiters.delete(crc);
              resolve(t);
            });
          });
          litAt.delete(crc);
          if (lit === null) missed++;
          else {
            latencies.push(lit - answeredAt);
            fromSend.push(lit - sentAt);
          }
          const confirm = await http.request('PATCH', `/api/v1/sort-box-items/${id}/confirm`, { auth: p.auth, body: { barcode: `A-${crc}` } });
          if (confirm.status === 200) pairs++;
          else failed++;
        }
      }),
    );
    const figures = { ...summarize(latencies), fromSend: summarize(fromSend), pairsPerSecond: Math.round((pairs / seconds) * 10) / 10, missed, failed };
    say(
      `[lights] scan answered → light published: n ${figures.n}, p50 ${figures.p50} ms, p95 ${figures.p95} ms, p99 ${figures.p99} ms, max ${figures.max} ms; ` +
        `from the scan sent: p50 ${figures.fromSend.p50} ms, p99 ${figures.fromSend.p99} ms; ` +
        `${figures.pairsPerSecond} pairs/s, ${missed} lights not seen within ${WAIT_LIGHT_MS} ms, ${failed} refused requests`,
    );
    writeLatest(resultsDir, 'lights-latest.json', { rate, seconds, figures });
  } finally {
    await sub.endAsync().catch(() => undefined);
    http.close();
    for (const s of [...services].reverse()) await s.stop();
    await broker.close();
  }
}

runBench('lights bench', main);
