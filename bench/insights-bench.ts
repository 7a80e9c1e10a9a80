import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { Client as PgClient } from 'pg';
import { createApp } from '../services/api/app';
import { buildApiDeps } from '../services/api/start-api';
import { loadConfig } from '../shared/config/config';
import type { SqlDatabase } from '../shared/db/named-sql';
import { createRuntime } from '../shared/runtime/runtime';
import { createClient } from '../shared/tenancy/create-client.use-case';
import { applyStatsEvents, type OutboxEventRow } from '../workers/stats/apply-events.use-case';
import { rebuildStats } from '../shared/statistics/rebuild-stats.use-case';
import { recreateDatabase } from './bench-seed';
import { withDatabase, type BenchSettings } from './bench-settings';
import { BenchHttp } from './http-client';
import { summarize, type LatencySummary } from './stats';

/*
 * `npm run bench:scenarios -- insights` (and the last step of `npm run bench:scenarios`): a million scans over 90 days on
 * 20 walls by 100 sorters, written as outbox events by SQL (generate_series), rolled up by the
 * statistics use-case; then each /insights operation's latency over HTTP, and the consumer's rate and
 * lag under a live stream. Its own database, `sorting_bench_insights`. docs/benchmarks.md explains it.
 */

const settingInt = (name: string, fallback: number) => {
  const v = Number(process.env[name] ?? '');
  return Number.isFinite(v) && v > 0 ? Math.floor(v) : fallback;
};

export const INSIGHTS_DATABASE = 'sorting_bench_insights';
const DAYS = 90;
const WALLS = 20;
const SLOTS = 24;
const USERS = 100;
// A catalog of 200 products sorted in the period; docs/benchmarks.md shows how the sku count moves the figures.
const SKUS = settingInt('BENCH_INSIGHTS_SKUS', 200);

export interface InsightsBenchFigures {
  scans: number;
  events: number;
  generateMs: number;
  rollup: { events: number; ms: number; eventsPerSecond: number; rows: { hour: number; day: number } };
  consumer: { offeredPerSecond: number; seconds: number; eventsPerSecond: number; maxEventsPerSecond: number; lagMs: LatencySummary };
  operations: Record<string, LatencySummary>;
  targets: { operationP95Ms: number; consumerEventsPerSecond: number; met: boolean };
}

/**
 * The floor's history as outbox events, the shapes the sorting worker writes: per scan an item
 * created; 90 % confirmed (a third of them 2 units) 20..110 s later, the rest cancelled; every third
 * scan completes its order's slot; and refused scans, 3 % of the scans.
 */
async function generate(pg: PgClient, clientId: number, scans: number, end: Date): Promise<number> {
  const start = new Date(end.getTime() - DAYS * 86_400_000);
  await pg.query(`
    insert into warehouse (client_id, id, name, time_zone) values ($1, 1, 'Chicago DC', 'America/Chicago'), ($1, 2, 'Berlin DC', 'Europe/Berlin');
    `.replace(/\$1/g, String(clientId)));
  await pg.query(
    `insert into wall (client_id, name, warehouse_id) select $1, 'Wall ' || w, 1 + (w % 2) from generate_series(1, ${WALLS}) w`,
    [clientId],
  );
  await pg.query(
    `insert into sort_box (client_id, wall_id, serial_number, crc, position)
     select $1, w.id, 'SN-' || w.id || '-' || p, upper(lpad(to_hex(w.id * 1000 + p), 8, '0')), p
       from wall w, generate_series(1, ${SLOTS}) p where w.client_id = $1`,
    [clientId],
  );
  await pg.query(`
    create temp table bench_scan as
    select i,
           w.id as wall_id,
           sb.crc, sb.position,
           1000 + (w.n - 1) * ${USERS / WALLS} + (i % ${USERS / WALLS}) as user_id,
           'SKU-' || (1 + (i * 7919) % ${SKUS}) as sku,
           (array['Scanned','Scanned','Scanned','Scanned','Scanned','Scanned','Typed','KeyedIn','EmbeddedScanner','Camera'])[1 + (i * 31) % 10] as method,
           $1::timestamptz + (i::float8 / ${scans}) * interval '${DAYS} days' as at
      from generate_series(1::bigint, ${scans}) i
      join (select id, row_number() over (order by id) as n from wall where client_id = ${clientId}) w on w.n = 1 + i % ${WALLS}
      join sort_box sb on sb.wall_id = w.id and sb.position = 1 + (i / ${WALLS}) % ${SLOTS}`,
    [start.toISOString()],
  );
  const item = (status: string, extra: string) => `jsonb_build_object('item', jsonb_build_object(
      'id', i, 'wallId', wall_id, 'crc', crc, 'position', position, 'status', '${status}', 'orderId', i / 3, 'sku', sku, 'barcode', sku,
      'barcodeInputMethod', method, 'userId', user_id, 'color', 'Red', 'createdAt', at ${extra}),
      'sortBox', jsonb_build_object('crc', crc, 'position', position, 'wallId', wall_id))`;
  const insert = (type: string, at: string, data: string, where: string) =>
    pg.query(`insert into outbox_event (event_id, client_id, wall_id, type, occurred_at, data)
              select gen_random_uuid(), ${clientId}, wall_id, '${type}', ${at}, ${data} from bench_scan where ${where}`);
  await insert('sort-box-item.created', 'at', item('PendingConfirmation', ", 'units', 1, 'confirmedUnits', 0"), 'true');
  const confirmedAt = `at + (20 + i % 90) * interval '1 second'`;
  const units = `(case when i % 3 = 0 then 2 else 1 end)`;
  await insert('sort-box-item.confirmed', confirmedAt, item('Confirmed', `, 'units', ${units}, 'confirmedUnits', ${units}, 'confirmedAt', ${confirmedAt}`), 'i % 10 <> 9');
  await insert('sort-box-item.cancelled', `at + interval '15 seconds'`, item('Cancelled', ", 'units', 1, 'confirmedUnits', 0, 'cancelledAt', at + interval '15 seconds'"), 'i % 10 = 9');
  await insert('sort-box.completed', `at + interval '2 minutes'`, `jsonb_build_object('sortBox', jsonb_build_object('crc', crc, 'position', position, 'wallId', wall_id, 'status', 'Complete'), 'orderId', i / 3)`, 'i % 3 = 0 and i % 10 <> 9');
  await insert('command.refused', `at + interval '5 seconds'`, `jsonb_build_object('command', 'item.scan', 'code', 'barcode-not-recognized', 'userId', user_id, 'barcodeInputMethod', method, 'barcode', 'UNKNOWN')`, 'i % 33 = 0');
  await pg.query('drop table bench_scan');
  // A history the statistics consumer has passed (the rebuild counts it): relayed, and behind its position.
  await pg.query(`update outbox_horizon set through = greatest(through, (select coalesce(max(id), 0) from outbox_event))`);
  await pg.query(`update outbox_consumer set position = (select through from outbox_horizon) where name = 'stats'`);
  await pg.query('analyze outbox_event');
  const { rows } = await pg.query<{ n: string }>('select count(*) as n from outbox_event');
  return Number(rows[0].n);
}

type Say = (line: string) => void;

export async function runInsightsBench(s: BenchSettings, say: Say): Promise<InsightsBenchFigures> {
  const url = withDatabase(s.databaseUrl, INSIGHTS_DATABASE);
  const scans = settingInt('BENCH_INSIGHTS_SCANS', 1_000_000);
  const samples = settingInt('BENCH_INSIGHTS_SAMPLES', 60);
  const load = os.loadavg()[0];
  if (load > os.cpus().length * 0.5) say(`[insights] warning: the 1-minute load average is ${load.toFixed(2)} on ${os.cpus().length} CPUs: other work on this machine will skew the figures`);
  say(`[insights] database ${INSIGHTS_DATABASE}: drop, create, migrate`);
  await recreateDatabase(s.adminDatabaseUrl, url);
  const config = loadConfig({ ...process.env, DATABASE_URL: url, REDIS_URL: s.redisUrl, QUEUE_PREFIX: `${s.queuePrefix}-insights`, LOG_LEVEL: 'warn', SEED_DEMO: 'false', PASSWORD_HASH_ROUNDS: '4' });
  const runtime = await createRuntime('bench', { config });
  const pg = new PgClient({ connectionString: url });
  await pg.connect();
  const http = new BenchHttp('127.0.0.1', s.port);
  let server: ReturnType<ReturnType<typeof createApp>['listen']> | undefined;
  try {
    const client = await createClient(runtime.orm.em.fork(), { name: 'Insights Bench', team: 'insights-bench', adminEmail: 'admin@insights.bench', adminPassword: 'insights-bench-1', hashRounds: 4 });
    const end = new Date();
    let t0 = Date.now();
    const events = await generate(pg, client.clientId, scans, end);
    const generateMs = Date.now() - t0;
    say(`[insights] generated ${scans} scans → ${events} outbox events over ${DAYS} days, ${WALLS} walls, ${USERS} sorters, ${SKUS} skus in ${generateMs} ms`);

    // The history, rolled up set-wise by the rebuild (npm run cli -- stats rebuild): a day at a time.
    t0 = Date.now();
    const firstDay = new Date(end.getTime() - (DAYS + 1) * 86_400_000).toISOString().slice(0, 10);
    const afterLast = new Date(end.getTime() + 2 * 86_400_000).toISOString().slice(0, 10);
    let lastReport = Date.now();
    const rebuilt = await rebuildStats(url, { from: firstDay, to: afterLast }, (d, total) => {
      if (Date.now() - lastReport > 15_000) {
        lastReport = Date.now();
        say(`[insights] rebuild: ${d}/${total} days`);
      }
    });
    const rebuildMs = Date.now() - t0;
    const { rows: counts } = await pg.query<{ h: string; d: string }>('select (select count(*) from stats_hour) as h, (select count(*) from stats_day) as d');
    await pg.query('analyze stats_hour; analyze stats_day; analyze stats_counted_event');
    const rollup = { events: rebuilt.events, ms: rebuildMs, eventsPerSecond: Math.round(rebuilt.events / (rebuildMs / 1000)), rows: { hour: Number(counts[0].h), day: Number(counts[0].d) } };
    say(`[insights] history rolled up by stats rebuild: ${rebuilt.events} events in ${rebuildMs} ms (${rollup.eventsPerSecond} events/s) → ${rollup.rows.hour} hour rows, ${rollup.rows.day} day rows`);

    // The consumer's own rate: fresh copies of the latest events (new ids, so all count), as fast as it takes them.
    const batch = settingInt('BENCH_INSIGHTS_BATCH', 1000);
    const { rows: sample } = await pg.query<OutboxEventRow>(
      `select gen_random_uuid() as event_id, client_id, wall_id, type, occurred_at, data from outbox_event
        order by occurred_at desc limit $1`,
      [settingInt('BENCH_INSIGHTS_CONSUMER_EVENTS', 30_000)],
    );
    t0 = Date.now();
    for (let i = 0; i < sample.length; i += batch) await applyStatsEvents(runtime.ormSql, sample.slice(i, i + batch));
    const consumerMs = Date.now() - t0;
    const maxRate = Math.round(sample.length / (consumerMs / 1000));
    say(`[insights] consumer at full speed: ${sample.length} events in batches of ${batch} in ${consumerMs} ms = ${maxRate} events/s`);

    // The API, in this process, on the bench port.
    const app = createApp(buildApiDeps(runtime));
    await new Promise<void>((resolve) => {
      server = app.listen(s.port, '127.0.0.1', () => resolve());
    });
    const token = await http.request('POST', '/token', { body: { username: 'admin@insights.bench', password: 'insights-bench-1' } });
    const auth = `Bearer ${(token.body as { access_token: string }).access_token}`;
    const { rows: walls } = await pg.query<{ id: number }>('select id from wall where client_id = $1 order by id', [client.clientId]);
    let n = 0;
    const pick = <T>(xs: readonly T[]) => xs[n++ % xs.length];
    const rangeOf = () => {
      const days = pick([1, 7, 30, 90]);
      const to = new Date(end.getTime() - pick([0, 3, 11]) * 3_600_000 - pick([0, 17]) * 60_000);
      return { from: new Date(to.getTime() - days * 86_400_000).toISOString(), to: to.toISOString() };
    };
    const scope = () => pick([{}, { warehouseId: 1 }, { warehouseId: 2 }, { wallId: pick(walls).id }]) as Record<string, unknown>;
    const qs = (q: Record<string, unknown>) => new URLSearchParams(Object.entries(q).map(([k, v]) => [k, String(v)] as [string, string])).toString();
    const day = () => new Date(end.getTime() - pick([0, 1, 5, 40]) * 86_400_000).toISOString();
    const operations: Record<string, () => string> = {
      GetSortingStatistics: () => `/api/v1/insights/stats?${qs({ ...rangeOf(), ...scope() })}`,
      GetDailyOrderSortingStats: () => `/api/v1/insights/daily/orders?${qs({ date: day(), ...scope() })}`,
      GetDailyUnitSortingStats: () => `/api/v1/insights/daily/units?${qs({ date: day(), ...scope(), ...(n % 2 ? { userId: 1000 + (n % USERS) } : {}) })}`,
      GetOrderSortingStatsForDateRange: () => `/api/v1/insights/orders/sorted?${qs({ ...rangeOf(), ...scope() })}`,
      GetUnitSortingStatsForDateRange: () => `/api/v1/insights/units/sorted?${qs({ ...rangeOf(), ...scope(), ...(n % 2 ? { userId: 1000 + (n % USERS) } : {}) })}`,
      GetWallBarcodeScanningStatsForDateRange: () => `/api/v1/insights/walls/${pick(walls).id}/scanned?${qs(rangeOf())}`,
      GetWallBarcodeConfirmationStatsPerSlotForDateRange: () => `/api/v1/insights/walls/${pick(walls).id}/per-slot/confirmed?${qs(rangeOf())}`,
      GetWallBarcodeScanningStatsPerSlotForDateRange: () => `/api/v1/insights/walls/${pick(walls).id}/per-slot/scanned?${qs(rangeOf())}`,
    };
    const latencies: Record<string, LatencySummary> = {};
    for (const [op, path] of Object.entries(operations)) {
      for (let i = 0; i < 5; i++) await http.request('GET', path(), { auth }); // warm-up
      const ms: number[] = [];
      for (let i = 0; i < samples; i++) {
        const p = path();
        const started = process.hrtime.bigint();
        const res = await http.request('GET', p, { auth });
        ms.push(Number(process.hrtime.bigint() - started) / 1e6);
        if (res.status !== 200) throw new Error(`${op} ${p} answered ${res.status} ${JSON.stringify(res.body)}`);
      }
      latencies[op] = summarize(ms);
      say(`[insights] ${op.padEnd(52)} p50 ${latencies[op].p50} ms · p95 ${latencies[op].p95} ms · max ${latencies[op].max} ms (${samples} requests over 1..90 days, every scope)`);
    }
    server?.close();
    server = undefined;

    const consumer = await liveConsumer(runtime.ormSql, client.clientId, walls.map((w) => w.id), settingInt('BENCH_INSIGHTS_RATE', 2000), settingInt('BENCH_INSIGHTS_SECONDS', 10));
    say(`[insights] live stream: offered ${consumer.offeredPerSecond} events/s for ${consumer.seconds} s → consumed ${consumer.eventsPerSecond} events/s, consumer lag (arrival → counted) p50 ${consumer.lagMs.p50} ms · p95 ${consumer.lagMs.p95} ms · max ${consumer.lagMs.max} ms`);

    const worstP95 = Math.max(...Object.values(latencies).map((l) => l.p95));
    const met = worstP95 < 50 && maxRate >= 2000;
    say(`[insights] targets: every operation p95 < 50 ms (worst ${worstP95} ms), consumer ≥ 2000 events/s (${maxRate}/s at full speed): ${met ? 'met' : 'NOT met'}`);
    return { scans, events, generateMs, rollup, consumer: { ...consumer, maxEventsPerSecond: maxRate }, operations: latencies, targets: { operationP95Ms: worstP95, consumerEventsPerSecond: maxRate, met } };
  } finally {
    server?.close();
    http.close();
    await pg.end();
    await runtime.close();
  }
}

/**
 * A live stream: scans and confirms arrive at `rate` events/s (as the outbox fan-out would hand them
 * over); the consumer takes whatever has arrived, up to 1000 at a time. Lag = applied − arrived.
 */
async function liveConsumer(db: SqlDatabase, clientId: number, wallIds: number[], rate: number, seconds: number) {
  const queue: { event: OutboxEventRow; arrived: number }[] = [];
  const lags: number[] = [];
  const started = Date.now();
  let produced = 0;
  let consumed = 0;
  const stopAt = started + seconds * 1000;
  const producer = setInterval(() => {
    const due = Math.min(Math.floor(((Date.now() - started) / 1000) * rate), rate * seconds);
    for (; produced < due; produced++) {
      const now = new Date();
      const confirm = produced % 2 === 1;
      queue.push({
        arrived: Date.now(),
        event: {
          event_id: randomUUID(),
          client_id: clientId,
          wall_id: wallIds[produced % wallIds.length],
          type: confirm ? 'sort-box-item.confirmed' : 'sort-box-item.created',
          occurred_at: now,
          data: {
            item: {
              id: produced, crc: `C${String(produced % 24).padStart(7, '0')}`, position: 1 + (produced % 24), userId: 1000 + (produced % USERS), sku: `SKU-${1 + (produced % SKUS)}`,
              barcodeInputMethod: 'Scanned', createdAt: new Date(now.getTime() - (confirm ? 30_000 : 0)).toISOString(), units: 1, confirmedUnits: confirm ? 1 : 0,
              confirmedAt: confirm ? now.toISOString() : null,
            },
          },
        },
      });
    }
  }, 5);
  try {
    while (Date.now() < stopAt || queue.length > 0) {
      if (queue.length === 0) {
        await new Promise((r) => setTimeout(r, 2));
        continue;
      }
      const taken = queue.splice(0, 1000);
      await applyStatsEvents(db, taken.map((t) => t.event));
      const at = Date.now();
      for (const t of taken) lags.push(at - t.arrived);
      consumed += taken.length;
    }
  } finally {
    clearInterval(producer);
  }
  const elapsed = (Date.now() - started) / 1000;
  return { offeredPerSecond: rate, seconds, eventsPerSecond: Math.round(consumed / elapsed), lagMs: summarize(lags) };
}
