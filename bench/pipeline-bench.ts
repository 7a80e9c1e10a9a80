import { Client as PgClient } from 'pg';
import WebSocket from 'ws';
import type { BenchHttp } from './http-client';
import type { BenchSorter } from './load';
import { summarize, type LatencySummary } from './stats';

/*
 * The event pipeline's figures for `npm run bench:scenarios` (docs/benchmarks.md "Event pipeline"):
 * - accepted scan → WebSocket message at a hub, at a fixed offered rate, with the outbox relay running;
 * - the relay's lag at that rate (event time in the command's transaction → marked relayed);
 * - the audit listings on a log of a million records.
 */

export interface HubLatencyFigures {
  rate: number;
  seconds: number;
  scansOk: number;
  scanErrors: number;
  /** Scans answered 200 whose hub message never came (within 5 s after the step). */
  missing: number;
  /** From sending the scan to its `sort-box-item.created` message at the hub (WebSocket). */
  sendToHub: LatencySummary;
  /** From the scan's 200 answer at the client to the hub message (negative: the hub was first). */
  answerToHub: LatencySummary;
  scanLatency: LatencySummary;
}

/** Opens one WebSocket per wall (as a hub does) and resolves once all are open. */
async function openHubs(port: number, auth: string, wallIds: number[], onItem: (itemId: number, at: number) => void): Promise<WebSocket[]> {
  const token = auth.replace(/^Bearer /, '');
  return Promise.all(
    wallIds.map(
      (wallId) =>
        new Promise<WebSocket>((resolve, reject) => {
          const ws = new WebSocket(`ws://127.0.0.1:${port}/api/v1/events/ws?wallId=${wallId}&access_token=${encodeURIComponent(token)}`);
          ws.on('message', (raw) => {
            const at = performance.now();
            const e = JSON.parse(String(raw)) as { type: string; data?: { item?: { id?: number } } };
            if (e.type === 'sort-box-item.created' && typeof e.data?.item?.id === 'number') onItem(e.data.item.id, at);
          });
          ws.once('open', () => resolve(ws));
          ws.once('error', reject);
        }),
    ),
  );
}

/**
 * Open loop at `rate` scans/s (no confirms: the figure is the scan's way to the hubs), each by the next
 * sorter in turn; the hubs of every wall listen on WebSocket.
 */
export async function measureHubLatency(
  http: BenchHttp,
  opts: { port: number; adminAuth: string; databaseUrl: string; sorters: BenchSorter[]; wallIds: number[]; rate: number; durationMs: number },
): Promise<HubLatencyFigures> {
  const arrived = new Map<number, number>();
  const hubs = await openHubs(opts.port, opts.adminAuth, opts.wallIds, (id, at) => {
    if (!arrived.has(id)) arrived.set(id, at);
  });
  const scans: { id: number; sentAt: number; answeredAt: number }[] = [];
  let errors = 0;
  const scanLatency: number[] = [];
  const pg = new PgClient({ connectionString: opts.databaseUrl });
  await pg.connect();
  try {
    const total = Math.round((opts.rate * opts.durationMs) / 1000);
    const inFlight = new Set<Promise<void>>();
    const start = performance.now();
    let i = 0;
    while (i < total) {
      const now = performance.now();
      for (let due = start + (i * 1000) / opts.rate; i < total && due <= now; due = start + (i * 1000) / opts.rate) {
        const s = opts.sorters[i % opts.sorters.length];
        const sentAt = due;
        const p = http
          .request('POST', '/api/v1/sort-box-items', { auth: s.auth, body: { sessionToken: s.sessionToken, barcode: s.barcodes[s.next++ % s.barcodes.length] } })
          .then((res) => {
            const answeredAt = performance.now();
            if (res.status !== 200) {
              errors++;
              return;
            }
            scanLatency.push(answeredAt - sentAt);
            scans.push({ id: (res.body as { id: number }).id, sentAt, answeredAt });
          });
        inFlight.add(p);
        void p.finally(() => inFlight.delete(p));
        i++;
      }
      await new Promise((r) => setTimeout(r, 1));
    }
    await Promise.all([...inFlight]);
    const seconds = (performance.now() - start) / 1000;
    const deadline = performance.now() + 5000;
    while (scans.some((x) => !arrived.has(x.id)) && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const seen = scans.filter((x) => arrived.has(x.id));
    return {
      rate: opts.rate,
      seconds: Math.round(seconds * 100) / 100,
      scansOk: scans.length,
      scanErrors: errors,
      missing: scans.length - seen.length,
      sendToHub: summarize(seen.map((x) => arrived.get(x.id)! - x.sentAt)),
      answerToHub: summarize(seen.map((x) => arrived.get(x.id)! - x.answeredAt)),
      scanLatency: summarize(scanLatency),
    };
  } finally {
    for (const ws of hubs) ws.terminate();
    await pg.end();
  }
}

export interface AuditListingFigures {
  rows: number;
  insertSeconds: number;
  listings: { name: string; path: string; n: number; p50: number; p95: number; max: number; meanRecords: number }[];
}

const WALLS = 10;
const USERS = 60;
const ORDERS = 20_000;
const CRCS = 600;
const BARCODES = 2_000;

/**
 * Fills audit_log with `rows` records of one client over the last 30 days (kinds, walls, users,
 * orders, slots and barcodes drawn independently at random; 2 % refusals, 0.5 % license plates), then
 * times every listing through the API with filter values drawn at random.
 */
export async function measureAuditListings(
  http: BenchHttp,
  opts: { databaseUrl: string; clientId: number; adminAuth: string; rows: number; requestsPerListing: number; say: (line: string) => void },
): Promise<AuditListingFigures> {
  const pg = new PgClient({ connectionString: opts.databaseUrl });
  await pg.connect();
  const t0 = Date.now();
  try {
    const chunk = 250_000;
    for (let from = 0; from < opts.rows; from += chunk) {
      const to = Math.min(opts.rows, from + chunk);
      await pg.query(
        `insert into audit_log (client_id, event_id, occurred_at, type, kind, wall_id, warehouse_id, user_id, order_id, picklist_id, crc, barcode,
                                sort_box_item_id, session_id, is_error, is_license_plate, message, data)
         select $1, gen_random_uuid(), now() - (($2::int - g)::float8 / $2::int) * interval '30 days',
                t.type, t.kind, v.w, v.w, v.u, case when t.kind <> 'session' and t.kind <> 'wall' then v.o end,
                case when v.p < 0.2 then v.pl end,
                case when t.kind <> 'session' and t.kind <> 'wall' then 'C' || lpad(v.c::text, 7, '0') end,
                case when t.kind = 'sort-box-item' then 'B' || lpad(v.b::text, 11, '0') end,
                case when t.kind = 'sort-box-item' then g::int end, v.s, t.type = 'command.refused', t.kind = 'license-plate',
                'bench record ' || g, '{}'::jsonb
           from generate_series($3::bigint, $4::bigint - 1) g
           -- Per row (the lateral subqueries name g): independent random values, as on a busy floor.
           cross join lateral (select g as gg, (1 + floor(random() * ${WALLS}))::int as w, (1 + floor(random() * ${USERS}))::int as u,
                                      (1 + floor(random() * ${ORDERS}))::int as o, floor(random() * ${CRCS})::int as c,
                                      floor(random() * ${BARCODES})::int as b, (1 + floor(random() * 50))::int as pl,
                                      (1 + floor(random() * 5000))::int as s, random() as p, random() as r) v
           cross join lateral (select case
               when v.r < 0.005 then 'license-plate.generated'
               when v.r < 0.025 then 'command.refused'
               when v.r < 0.325 then 'sort-box-item.created'
               when v.r < 0.525 then 'sort-box-item.confirmed'
               when v.r < 0.625 then 'sort-box.completed'
               when v.r < 0.725 then 'sort-box.released'
               when v.r < 0.825 then 'session.started'
               when v.r < 0.95 then 'session.ended'
               else 'wall.updated' end as type) tt
           cross join lateral (select tt.type, case
               when tt.type like 'license-plate%' then 'license-plate'
               when tt.type = 'command.refused' or tt.type like 'sort-box-item.%' then 'sort-box-item'
               when tt.type like 'sort-box.%' then 'sort-box'
               when tt.type like 'session.%' then 'session'
               else 'wall' end as kind) t`,
        [opts.clientId, opts.rows, from, to],
      );
      opts.say(`  audit log: ${to} of ${opts.rows} records written (${Math.round((Date.now() - t0) / 1000)} s)`);
    }
    await pg.query('analyze audit_log');
  } finally {
    await pg.end();
  }
  const insertSeconds = Math.round((Date.now() - t0) / 100) / 10;

  const pick = (n: number) => 1 + Math.floor(Math.random() * n);
  const crc = () => `C${String(pick(CRCS) - 1).padStart(7, '0')}`;
  const iso = (daysAgo: number) => new Date(Date.now() - daysAgo * 86400_000).toISOString();
  const cases: { name: string; path: () => string }[] = [
    { name: 'ListAuditLogs (no filter)', path: () => '/audit-logs' },
    { name: 'ListAuditLogs count=1000', path: () => '/audit-logs?count=1000' },
    { name: 'ListAuditLogs wallId', path: () => `/audit-logs?wallId=${pick(WALLS)}` },
    { name: 'ListAuditLogs warehouseId', path: () => `/audit-logs?warehouseId=${pick(WALLS)}` },
    { name: 'ListAuditLogs userId', path: () => `/audit-logs?userId=${pick(USERS)}` },
    { name: 'ListAuditLogs orderId', path: () => `/audit-logs?orderId=${pick(ORDERS)}` },
    { name: 'ListAuditLogs crc', path: () => `/audit-logs?crc=${crc()}` },
    { name: 'ListAuditLogs barcode', path: () => `/audit-logs?barcode=B${String(pick(BARCODES) - 1).padStart(11, '0')}` },
    { name: 'ListAuditLogs errors=true', path: () => '/audit-logs?errors=true' },
    { name: 'ListAuditLogs licensePlates=true', path: () => '/audit-logs?licensePlates=true' },
    { name: 'ListAuditLogs wallId+userId', path: () => `/audit-logs?wallId=${pick(WALLS)}&userId=${pick(USERS)}` },
    { name: 'ListAuditLogs wallId+errors', path: () => `/audit-logs?wallId=${pick(WALLS)}&errors=true` },
    { name: 'ListAuditLogs from/to (1 day)', path: () => { const d = pick(28); return `/audit-logs?from=${iso(d + 1)}&to=${iso(d)}`; } },
    { name: 'ListAuditLogs since', path: () => `/audit-logs?since=${iso(pick(28))}` },
    { name: 'ListAuditLogsBySortBoxAndOrderSort', path: () => `/audit-logs/sort-boxes/${crc()}?orderSortId=${iso(pick(28))}` },
    { name: 'ListSortBoxAuditLogs', path: () => '/audit-logs/sort-boxes' },
    { name: 'ListSortBoxAuditLogs sortBoxCrc', path: () => `/audit-logs/sort-boxes?sortBoxCrc=${crc()}` },
    { name: 'ListSortBoxAuditLogs licensePlates', path: () => `/audit-logs/sort-boxes?licensePlates=true&wallId=${pick(WALLS)}` },
    { name: 'ListSortBoxItemAuditLogs', path: () => '/audit-logs/sort-box-items' },
    { name: 'ListSortBoxItemAuditLogs orderId', path: () => `/audit-logs/sort-box-items?orderId=${pick(ORDERS)}` },
    { name: 'ListSortBoxItemAuditLogs wallId+userId', path: () => `/audit-logs/sort-box-items?wallId=${pick(WALLS)}&userId=${pick(USERS)}` },
    { name: 'ListUserSessionsAuditLogs', path: () => '/audit-logs/sessions' },
    { name: 'ListUserSessionsAuditLogs userId', path: () => `/audit-logs/sessions?userId=${pick(USERS)}` },
    { name: 'ListWallAuditLogs', path: () => '/audit-logs/walls' },
    { name: 'ListWallAuditLogs wallId', path: () => `/audit-logs/walls?wallId=${pick(WALLS)}` },
    { name: 'GetInitialWallAuditLogTimestamp', path: () => '/audit-logs/initial-timestamp' },
  ];
  const listings: AuditListingFigures['listings'] = [];
  for (const c of cases) {
    const samples: number[] = [];
    let records = 0;
    let example = '';
    for (let i = 0; i < opts.requestsPerListing; i++) {
      const path = c.path();
      example ||= path;
      const t = performance.now();
      const res = await http.request('GET', `/api/v1${path}`, { auth: opts.adminAuth, timeoutMs: 10_000 });
      samples.push(performance.now() - t);
      if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
      records += Array.isArray(res.body) ? res.body.length : 1;
    }
    const sum = summarize(samples);
    listings.push({ name: c.name, path: example, n: sum.n, p50: sum.p50, p95: sum.p95, max: sum.max, meanRecords: Math.round(records / opts.requestsPerListing) });
    opts.say(`  ${c.name.padEnd(42)} p50 ${String(sum.p50).padStart(7)} ms · p95 ${String(sum.p95).padStart(7)} ms · ${Math.round(records / opts.requestsPerListing)} records`);
  }
  return { rows: opts.rows, insertSeconds, listings };
}
