import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client as PgClient } from 'pg';
import { initOrm } from '../shared/db/orm';
import { createRedis } from '../shared/redis/redis';
import { createClient } from '../shared/tenancy/create-client.use-case';
import { addOrders, addProducts, addSlots, addWall, addWarehouse } from '../fixtures/floor-data';
import { freePort } from '../fixtures/local-servers';
import { recreateDatabase } from './bench-seed';
import { CpuMeter } from './cpu-usage';
import { pollUntil } from './service-processes';
import { bytesPerPair, tableSizes } from './lib/pg-insight';
import { EVERY_PROCESS_NODE_FLAGS, ROLES } from '../services/supervisor/roles';

/*
 * `npx tsx bench/pipeline-cpu.ts`: CPU per scan+confirm pair of the event pipeline's roles (the relay
 * and the audit, stats, labels and webhooks workers, each a process of its own) with their PostgreSQL
 * backends and Redis, and the bytes per pair each table grows by (docs/benchmarks.md, "Event pipeline").
 *
 * On a database of its own (PIPELINE_DATABASE, dropped and created), the commands are played by this
 * process at PIPELINE_RATE pairs/s for PIPELINE_SECONDS: each scan and each confirm is a transaction
 * writing the events the sorting worker writes (`sort-box-item.created`; `sort-box-item.confirmed`,
 * and for every fifth pair the order's `sort-box.completed`), 2.2 events per pair, over 10 walls. As on
 * the realistic floor, a webhook subscription takes sort-box.completed and .released and the session
 * events (answered 204 here), and the client prints ZPL (labels rendered ahead in ZPL). The CPU counts
 * from the first command until every effect is there. Redis is a redis-server of the bench's own, so
 * its CPU is the pipeline's.
 *
 * PIPELINE_PROCESSES=one runs the five roles in one process (`workers/main.ts outbox,audit,…`: one
 * database pool, one notification listener), as `npm start` runs the roles that need no core of their own.
 * Each process gets the node flags `npm start` gives its own (the pipeline role's with
 * PIPELINE_PROCESSES=one), or PIPELINE_NODE_FLAGS instead (say `--max-semi-space-size=16`).
 * PIPELINE_PROFILE_DIR=<dir> writes a V8 CPU profile of each worker process there (--cpu-prof).
 * PIPELINE_LIGHTS=1 adds the light gateway (`lights`, as `npm start`'s pipeline process runs it) on the
 * broker of MQTT_URL (mqtt://127.0.0.1:1883), its topics under PIPELINE_MQTT_PREFIX (pipeline-bench).
 *
 *   PIPELINE_RATE (100), PIPELINE_SECONDS (30), PIPELINE_DATABASE (sorting_pipeline_bench), DATABASE_URL
 */

const ROOT = path.resolve(__dirname, '..');
const RATE = Number(process.env.PIPELINE_RATE ?? 100);
const SECONDS = Number(process.env.PIPELINE_SECONDS ?? 30);
const DB = process.env.PIPELINE_DATABASE ?? 'sorting_pipeline_bench';
const base = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/sorting');
const admin = new URL(base.toString());
admin.pathname = '/postgres';
base.pathname = `/${DB}`;
const databaseUrl = base.toString();
const prefix = 'sorting-pipeline-bench';
const KINDS: readonly string[] = ['outbox', 'audit', 'stats', 'labels', 'webhooks', ...(process.env.PIPELINE_LIGHTS === '1' ? ['lights'] : [])];
const WALLS = 10;

/** A redis-server of the bench's own (no persistence) on a free port, so its CPU is the pipeline's alone. */
async function ownRedis(): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'warning'], { stdio: 'ignore' });
  const url = `redis://127.0.0.1:${port}`;
  const probe = createRedis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  await pollUntil('the bench Redis to answer', async () => (await probe.connect().then(() => probe.ping(), () => null)) === 'PONG', { timeoutMs: 10_000, intervalMs: 50 });
  probe.disconnect();
  return { url, child };
}

async function main(): Promise<void> {
  await recreateDatabase(admin.toString(), databaseUrl);
  const pairs = Math.round(RATE * SECONDS);
  const completions = Math.ceil(pairs / 5);

  // The floor: a client, 10 walls of 24 slots, one order per completed slot (its label is rendered ahead).
  const orm = await initOrm(databaseUrl, 2);
  const em = orm.em.fork();
  const client = await createClient(em, { name: 'Pipeline bench', team: 'pipeline-bench', adminEmail: 'admin@pipeline.bench', adminPassword: 'pipeline-bench-1', hashRounds: 4 });
  const clientId = client.clientId;
  const wh = await addWarehouse(em, clientId, { id: 1, name: 'Bench DC', timeZone: 'Europe/Berlin' });
  await addProducts(em, clientId, [{ sku: 'SKU-1' }]);
  await addOrders(em, clientId, Array.from({ length: completions }, (_, i) => ({ id: i + 1, warehouseId: wh.id, items: [{ sku: 'SKU-1', qty: 5 }] })));
  const walls: { id: number; slots: { id: number; serialNumber: string; crc: string; position: number }[] }[] = [];
  for (let w = 0; w < WALLS; w++) {
    const wall = await addWall(em, clientId, { name: `Bench wall ${w + 1}`, warehouseId: wh.id });
    walls.push({ id: wall.id, slots: (await addSlots(em, clientId, wall.id, 24)).map((s) => ({ id: s.id, serialNumber: s.serialNumber, crc: s.crc, position: s.position })) });
  }
  await orm.close();
  const receiver = createServer((req, res) => req.resume().on('end', () => res.writeHead(204).end()));
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  const pg = new PgClient({ connectionString: databaseUrl });
  await pg.connect();
  await pg.query(
    `insert into webhook_subscription (client_id, url, events, secret) values ($1, $2, '{sort-box.completed,sort-box.released,session.started,session.ended}', $3)`,
    [clientId, `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`, `whsec_${Buffer.from('pipeline-bench-secret-32-bytes!!').toString('base64')}`],
  );
  // The client prints ZPL (a version without label_print_format renders both formats ahead anyway).
  await pg.query(
    `do $$ begin if to_regclass('label_print_format') is not null then insert into label_print_format (client_id, format, last_printed_at) values (${Number(clientId)}, 'zpl', now()); end if; end $$`,
  );

  const ownRedisServer = await ownRedis();
  const redisUrl = ownRedisServer.url;
  const env = {
    ...process.env,
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    QUEUE_PREFIX: prefix,
    LOG_LEVEL: 'info',
    NODE_ENV: 'production',
    JWT_SECRET: 'pipeline-bench-secret-not-for-production',
    MQTT_URL: process.env.MQTT_URL ?? 'mqtt://127.0.0.1:1883',
    MQTT_TOPIC_PREFIX: process.env.PIPELINE_MQTT_PREFIX ?? 'pipeline-bench',
  };
  const outputs = new Map<string, string>();
  const children = new Map<string, ChildProcess>();
  // One process per role, or (PIPELINE_PROCESSES=one) every role in one process with one runtime.
  const groups: { name: string; args: string[]; kinds: readonly string[] }[] =
    process.env.PIPELINE_PROCESSES === 'one'
      ? [{ name: 'pipeline', args: ['workers/main.ts', KINDS.join(',')], kinds: KINDS }]
      : KINDS.map((kind) => ({ name: kind, args: ['workers/main.ts', kind], kinds: [kind] }));
  const nodeFlags =
    process.env.PIPELINE_NODE_FLAGS !== undefined
      ? process.env.PIPELINE_NODE_FLAGS.split(/\s+/).filter(Boolean)
      : process.env.PIPELINE_PROCESSES === 'one'
        ? [...(ROLES.find((r) => r.role === 'pipeline')?.nodeFlags ?? EVERY_PROCESS_NODE_FLAGS)]
        : [...EVERY_PROCESS_NODE_FLAGS];
  console.log(`[pipeline-cpu] node flags: ${nodeFlags.join(' ') || '(none)'}`);
  for (const g of groups) {
    const profile = process.env.PIPELINE_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.PIPELINE_PROFILE_DIR}/${g.name}`] : [];
    const child = spawn(process.execPath, [...nodeFlags, ...profile, '--import', 'tsx', ...g.args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    outputs.set(g.name, '');
    const add = (b: Buffer) => outputs.set(g.name, outputs.get(g.name) + b.toString());
    child.stdout!.on('data', add);
    child.stderr!.on('data', add);
    children.set(g.name, child);
  }
  try {
    for (const g of groups) {
      for (const kind of g.kinds) await pollUntil(`the ${kind} worker to start`, async () => outputs.get(g.name)!.includes(`worker '${kind}' started`), { timeoutMs: 120_000 });
    }
    // The commands' backend (this process inserting the events) is the sorting worker's cost, not the pipeline's.
    const { rows: own } = await pg.query<{ pid: number }>('select pg_backend_pid() as pid');
    const commandsBackend = own[0]!.pid;
    const meter = new CpuMeter(databaseUrl, DB, () => ({
      ...Object.fromEntries([...children].map(([k, c]) => [k, c.pid])),
      commands: commandsBackend,
      redis: ownRedisServer.child.pid,
    }));
    const bytesBefore = await tableSizes(pg);
    const before = await meter.snapshot();
    const t0 = Date.now();

    // The commands, as the sorting worker writes their events: one transaction each, at the rate asked.
    const event = (wallId: number, type: string, data: object) => ({ id: randomUUID(), type, wallId, data });
    const write = async (events: ReturnType<typeof event>[]) => {
      await pg.query(
        `insert into outbox_event (event_id, client_id, wall_id, type, occurred_at, data)
         select e.id, $1, e."wallId", e.type, clock_timestamp(), e.data from jsonb_to_recordset($2::jsonb) as e(id uuid, "wallId" int, type text, data jsonb)`,
        [clientId, JSON.stringify(events)],
      );
    };
    let completed = 0;
    for (let i = 0; i < pairs; i++) {
      const wall = walls[i % WALLS]!;
      const slot = wall.slots[Math.floor(i / WALLS) % 24]!;
      const completes = i % 5 === 0 && completed < completions;
      const orderId = completes ? ++completed : completions + 1 + i;
      const createdAt = new Date().toISOString();
      const item = {
        id: i + 1, wallId: wall.id, crc: slot.crc, sorterBarcode: `A-${slot.crc}`, position: slot.position, status: 'PendingConfirmation', units: 1,
        confirmedUnits: 0, orderId, orderItemId: 1000 + i, sku: 'SKU-1', barcode: '012345678905', barcodeInputMethod: 'Scanned', userId: 100 + (i % 60),
        color: 'Blue', colorHex: '#1E88E5', requiredUnits: 5, remainingUnits: 4, createdAt, confirmedAt: null as string | null, cancelledAt: null,
      };
      const sortBox = {
        id: slot.id, wallId: wall.id, serialNumber: slot.serialNumber, crc: slot.crc, sorterBarcode: `A-${slot.crc}`, shipperBarcode: `B-${slot.crc}`,
        position: slot.position, status: 'Sorting', orderId,
      };
      const due = t0 + (i * 1000) / RATE;
      if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
      await write([event(wall.id, 'sort-box-item.created', { item, sortBox, color: 'Blue', colorHex: '#1E88E5' })]);
      const confirmedAt = new Date().toISOString();
      const confirmed = [event(wall.id, 'sort-box-item.confirmed', { item: { ...item, status: 'Confirmed', confirmedUnits: 1, confirmedAt }, sortBox })];
      if (completes) confirmed.push(event(wall.id, 'sort-box.completed', { sortBox: { ...sortBox, status: 'Complete' }, orderId }));
      await write(confirmed);
    }
    const sentSeconds = (Date.now() - t0) / 1000;
    // Done when every effect is there (checked by its result, so the same bench measures a version whose
    // consumers take their batches from queues): every event audited and counted, every delivery made,
    // every completed order's label rendered ahead.
    const deliveries = completions;
    await pollUntil(
      'every event audited, counted, delivered and rendered',
      async () => {
        const { rows } = await pg.query<{ audited: string; scans: string; confirmed: string; delivered: string; rendered: string }>(
          `select (select count(*) from audit_log where event_id is not null) as audited,
                  (select coalesce(sum(scans), 0) from stats_day where scope = 0 and dim = 0) as scans,
                  (select coalesce(sum(confirmed_items), 0) from stats_day where scope = 0 and dim = 0) as confirmed,
                  (select count(*) from webhook_delivery where status = 'succeeded') as delivered,
                  (select count(distinct order_id) from license_plate_document) as rendered`,
        );
        const r = rows[0]!;
        return (
          Number(r.audited) >= Math.round(pairs * 2 + completions) &&
          Number(r.scans) >= pairs &&
          Number(r.confirmed) >= pairs &&
          Number(r.delivered) >= deliveries &&
          Number(r.rendered) >= completions
        );
      },
      { timeoutMs: 600_000, intervalMs: 100 },
    );
    const seconds = (Date.now() - t0) / 1000;
    const used = CpuMeter.used(before, await meter.snapshot());
    const bytes = bytesPerPair(bytesBefore, await tableSizes(pg), pairs);
    const per = (ms: number) => Math.round((ms / pairs) * 1000) / 1000;
    // The commands' backend is in both the `commands` group and `postgres`: out of both.
    const commandsMs = used.commands ?? 0;
    delete used.commands;
    used.postgres = (used.postgres ?? 0) - commandsMs;
    const cpu: Record<string, number> = Object.fromEntries(Object.entries(used).map(([k, v]) => [k, per(v)]));
    const { rows: counts } = await pg.query<{ events: string; audit: string; deliveries: string; documents: string }>(
      `select (select count(*) from outbox_event) as events, (select count(*) from audit_log) as audit,
              (select count(*) from webhook_delivery where status = 'succeeded') as deliveries, (select count(*) from license_plate_document) as documents`,
    );
    console.log(
      JSON.stringify(
        {
          pairs,
          offeredPairsPerSecond: RATE,
          sentSeconds: Math.round(sentSeconds * 10) / 10,
          doneAfterSeconds: Math.round(seconds * 10) / 10,
          loadAverage: os.loadavg().map((l) => Math.round(l * 10) / 10),
          counts: Object.fromEntries(Object.entries(counts[0]!).map(([k, v]) => [k, Number(v)])),
          cpuMsPerPair: { ...cpu, total: Math.round(Object.values(cpu).reduce((a, b) => a + b, 0) * 1000) / 1000 },
          bytesPerPair: bytes,
          note: `run ${randomUUID().slice(0, 8)}; postgres = every backend of the bench database (the workers' pools and listeners); redis = a redis-server of the bench's own`,
        },
        null,
        2,
      ),
    );
  } finally {
    for (const child of children.values()) {
      child.kill('SIGTERM');
      await pollUntil('a worker to exit', async () => child.exitCode !== null || child.signalCode !== null, { timeoutMs: 15_000 }).catch(() => child.kill('SIGKILL'));
    }
    await pg.end();
    ownRedisServer.child.kill('SIGKILL');
    receiver.close();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.stack ?? err.message : err);
  process.exit(1);
});
