import { execFile } from 'node:child_process';
import path from 'node:path';
import request from 'supertest';
import type { OutboxEventRow } from '../../workers/stats/apply-events.use-case';
import { EVENT_CONSUMERS } from '../support/event-consumers';
import { consumeAll, relayAll } from '../support/pipeline';
import { refSortingStats, refWallScanning } from '../support/insights-reference';
import { buildFloor, connect, scan, type Floor } from '../support/sorting-floor';
import { useTestApi } from '../support/test-api';

/*
 * The insights over a real sorting floor: scans, confirms of several units, a cancel, a refused scan
 * and a completed order run through the API and the sorting worker; the outbox rows they wrote are fed
 * to the statistics consumer (as the fan-out will), replayed and reversed; the operations must then
 * agree with the sort_box_item rows and the raw events. The rebuild command must restore deleted roll-ups.
 */

const ROOT = path.resolve(__dirname, '../..');

function cliRun(args: string[], databaseUrl: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(path.join(ROOT, 'node_modules/.bin/tsx'), [path.join(ROOT, 'services/cli/cli.ts'), ...args], { cwd: ROOT, env: { ...process.env, DATABASE_URL: databaseUrl }, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    );
  });
}

describe('insights', () => {
  const api = useTestApi({ workers: ['sorting'] });
  let floor: Floor;
  let manager: string;
  let from: string;
  let to: string;

  async function outboxRows(): Promise<OutboxEventRow[]> {
    return api.runtime.orm.em
      .fork()
      .execute<OutboxEventRow[]>('select event_id, client_id, wall_id, type, occurred_at, data from outbox_event where client_id = ? order by id', [floor.tenant.clientId]);
  }
  const get = (p: string, query: Record<string, unknown>, auth = manager) => request(api.app).get(`/api/v1${p}`).query(query).set('Authorization', auth);

  beforeAll(async () => {
    floor = await buildFloor(api, {
      slots: 3,
      orders: [
        { id: 1, items: [{ sku: 'SKU-A', qty: 3 }] },
        { id: 2, items: [{ sku: 'SKU-B', qty: 2 }] },
      ],
    });
    // The warehouse's time zone, through the loader.
    const put = await request(api.app)
      .put('/api/v1/admin/warehouses')
      .set('Authorization', floor.tenant.auth)
      .send([{ id: floor.warehouseId, name: 'Jackson St DC', timeZone: 'america/chicago' }]);
    expect(put.status).toBe(200);
    expect(put.body.items[0].timeZone).toBe('America/Chicago');
    manager = (await floor.manager()).auth;

    from = new Date(Date.now() - 3_600_000).toISOString();
    const s1 = await floor.sorter(1);
    const { body: session } = await connect(api, floor, s1.auth);
    const a1 = await scan(api, s1.auth, session.token, 'SKU-A');
    expect(a1.status).toBe(200);
    expect((await request(api.app).patch(`/api/v1/sort-box-items/${a1.body.id}/confirm?units=2`).set('Authorization', s1.auth)).status).toBe(200);
    const a2 = await scan(api, s1.auth, session.token, 'SKU-A');
    expect((await request(api.app).patch(`/api/v1/sort-box-items/${a2.body.id}/confirm`).set('Authorization', s1.auth)).status).toBe(200);
    const b1 = await scan(api, s1.auth, session.token, 'SKU-B');
    expect((await request(api.app).patch(`/api/v1/sort-box-items/${b1.body.id}/cancel`).set('Authorization', s1.auth)).status).toBe(200);
    const b2 = await scan(api, s1.auth, session.token, 'SKU-B');
    expect((await request(api.app).patch(`/api/v1/sort-box-items/${b2.body.id}/confirm`).set('Authorization', s1.auth)).status).toBe(200);
    expect((await scan(api, s1.auth, session.token, 'NO-SUCH-PRODUCT')).status).toBe(422);
    for (const barcodeInputMethod of ['Typed', 'Typed', 'Scanned']) {
      const refused = await request(api.app).post('/api/v1/sort-box-items').set('Authorization', s1.auth).send({ sessionToken: session.token, barcode: 'NOT-A-PRODUCT', barcodeInputMethod });
      expect(refused.status).toBe(422);
    }
    to = new Date(Date.now() + 3_600_000).toISOString();

    // Relayed and consumed as the outbox and stats workers do; a second run has nothing left to add.
    await relayAll(api.runtime);
    expect(await consumeAll(api.runtime, EVENT_CONSUMERS.stats, 3)).toBeGreaterThan(0);
    expect(await consumeAll(api.runtime, EVENT_CONSUMERS.stats)).toBe(0);
  }, 60_000);

  it('GET /insights/stats agrees with the sort_box_item rows and the raw events', async () => {
    const res = await get('/insights/stats', { from, to });
    expect(res.status).toBe(200);
    const [items] = await api.runtime.orm.em.fork().execute<{ scans: string; units: string; cancelled: string; avg: string }[]>(
      `select count(*) as scans, sum(confirmed_units) filter (where status = 'Confirmed') as units, count(*) filter (where status = 'Cancelled') as cancelled,
              avg(extract(epoch from confirmed_at - created_at)) filter (where status = 'Confirmed') as avg
         from sort_box_item where client_id = ?`,
      [floor.tenant.clientId],
    );
    expect(res.body).toMatchObject({ scans: Number(items.scans), confirmedUnits: Number(items.units), cancelledItems: 1, sortedOrders: 1 });
    expect(res.body.scans).toBe(4);
    expect(res.body.averageSecondsToConfirm).toBeCloseTo(Number(items.avg), 2);
    expect(res.body.topProducts[0].sku).toBe('SKU-A');
    const s1 = await floor.sorter(1);
    expect(res.body.byUser).toEqual([{ userId: s1.userId, scans: 4, units: Number(items.units) }]);
    expect(res.body).toEqual(await refSortingStats(api.runtime.orm.em.fork(), { clientId: floor.tenant.clientId }, new Date(from), new Date(to), 20));
    const scoped = await get('/insights/stats', { from, to, wallId: floor.wallId, warehouseId: floor.warehouseId, products: 1 });
    expect(scoped.body).toMatchObject({ scans: 4, topProducts: [{ sku: 'SKU-A' }] });
    expect(scoped.body.topProducts).toHaveLength(1);
    expect((await get('/insights/stats', { from, to, products: 0 })).body.topProducts).toEqual([]);
  });

  it('the wall operations: scans per input method, per slot', async () => {
    const want = await refWallScanning(api.runtime.orm.em.fork(), floor.tenant.clientId, floor.wallId, new Date(from), new Date(to));
    const scanned = await get(`/insights/walls/${floor.wallId}/scanned`, { from, to });
    expect(scanned.status).toBe(200);
    expect(scanned.body).toMatchObject({ wallId: floor.wallId, scans: 4, confirmed: 3, cancelled: 1, failed: want.failed });
    // Counted as `scans` is: the refused scans are in `failed` only.
    expect(scanned.body.byInputMethod.Scanned).toBe(4);
    expect(Object.values(scanned.body.byInputMethod as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(scanned.body.scans);
    expect(want.failed).toBe(4);
    expect(scanned.body.byInputMethod.Typed).toBe(0);
    const perSlot = await get(`/insights/walls/${floor.wallId}/per-slot/confirmed`, { from, to });
    expect(perSlot.body.slots.map((s: { crc: string }) => s.crc)).toEqual(floor.slots.map((s) => s.crc));
    expect(Object.fromEntries(perSlot.body.slots.filter((s: { count: number }) => s.count).map((s: { crc: string; count: number }) => [s.crc, s.count]))).toEqual(want.confirmedPerSlot);
    const perSlotScans = await get(`/insights/walls/${floor.wallId}/per-slot/scanned`, { from, to });
    expect(perSlotScans.body.slots.reduce((n: number, s: { count: number }) => n + s.count, 0)).toBe(4);
  });

  it('daily and date-range figures count local days of the warehouse time zone', async () => {
    const today = new Date().toLocaleDateString('en-CA', { timeZone: 'America/Chicago' });
    const units = await get('/insights/units/sorted', { from, to, warehouseId: floor.warehouseId });
    expect(units.status).toBe(200);
    expect(units.body.total).toBe(4);
    expect(units.body.daily.find((d: { date: string }) => d.date === today)).toBeDefined();
    const s1 = await floor.sorter(1);
    expect((await get('/insights/units/sorted', { from, to, userId: s1.userId, wallId: floor.wallId })).body.total).toBe(4);
    expect((await get('/insights/units/sorted', { from, to, userId: s1.userId + 1000 })).body.total).toBe(0);
    const orders = await get('/insights/orders/sorted', { from, to, wallId: floor.wallId });
    expect(orders.body.total).toBe(1);
    const daily = await get('/insights/daily/units', { date: new Date().toISOString(), wallId: floor.wallId });
    expect(daily.body.date).toBe(today);
    expect(daily.body.total).toBe(4);
    const hour = Number(new Date().toLocaleString('en-US', { timeZone: 'America/Chicago', hour: 'numeric', hourCycle: 'h23' }));
    // Every confirm happened within the last minute: in this hour, or just before it.
    expect(daily.body.hourly.filter((h: { hour: number }) => h.hour === hour || h.hour === (hour + 23) % 24).reduce((n: number, h: { count: number }) => n + h.count, 0)).toBe(4);
    // A date without a time is a day of the scope's zone; as `to`, that day is included.
    const byDay = await get('/insights/units/sorted', { from: today, to: today, warehouseId: floor.warehouseId });
    expect(byDay.body.daily).toEqual([{ date: today, count: 4 }]);
    const [midnight] = await api.runtime.orm.em.fork().execute<{ t: Date }[]>(`select (?::date::timestamp at time zone 'America/Chicago') as t`, [today]);
    expect(byDay.body.from).toBe(new Date(midnight.t).toISOString());
    expect((await get('/insights/daily/units', { date: today, wallId: floor.wallId })).body).toMatchObject({ date: today, total: 4 });
    expect((await get('/insights/stats', { from: today, to: today, warehouseId: floor.warehouseId })).body.confirmedUnits).toBe(4);
    expect((await get('/insights/daily/orders', { date: today, wallId: floor.wallId })).body.total).toBe(1);
  });

  it('the billing figure agrees with the roll-ups', async () => {
    const month = new Date().toISOString().slice(0, 7);
    const usage = await request(api.app).get('/api/v1/admin/subscriptions/sorting/usage').query({ month }).set('Authorization', floor.tenant.auth);
    const [fromRollups] = await api.runtime.orm.em.fork().execute<{ n: number }[]>(
      `select count(distinct dim_key)::int as n from stats_day where client_id = ? and scope = 0 and dim = 4 and confirmed_items > 0
          and bucket >= (?||'-01')::date and bucket < (?||'-01')::date + interval '1 month'`,
      [floor.tenant.clientId, month, month],
    );
    expect(usage.body.slotsUsed).toBe(2);
    expect(fromRollups.n).toBe(usage.body.slotsUsed);
  });

  it('refuses bad input with 400, other clients\' walls with 404, Sorters with 403', async () => {
    const bad = async (p: string, q: Record<string, unknown>, field: string) => {
      const res = await get(p, q);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation-failed');
      expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(field);
    };
    await bad('/insights/stats', { to }, 'from');
    await bad('/insights/stats', { from: to, to: from }, 'from');
    await bad('/insights/stats', { from: 'yesterday', to }, 'from');
    await bad('/insights/stats', { from, to, products: -1 }, 'products');
    await bad('/insights/stats', { from, to, wallId: 'x' }, 'wallId');
    await bad('/insights/daily/units', {}, 'date');
    await bad('/insights/units/sorted', { from: '2026-02-31', to }, 'from');
    await bad(`/insights/walls/${floor.wallId}/scanned`, { from: '2026-01-01T00:00:00Z', to: '2099-01-01T00:00:00Z' }, 'to');
    expect((await get('/insights/stats', { from, to, wallId: '', warehouseId: 'null' })).status).toBe(200);
    expect((await get('/insights/stats', { from, to, wallId: 999999 })).status).toBe(404);
    expect((await get('/insights/orders/sorted', { from, to, warehouseId: 4242 })).status).toBe(404);
    expect((await get(`/insights/walls/999999/per-slot/scanned`, { from, to })).status).toBe(404);
    const sorter = await floor.sorter(1);
    const forbidden = await get('/insights/stats', { from, to }, sorter.auth);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.detail).toBe('Only a Manager or an Admin may read sorting figures of a range; you are signed in as a Sorter. Ask an Admin for the role if you need it.');
    expect((await request(api.app).get('/api/v1/insights/stats').query({ from, to })).status).toBe(401);
    const tz = await request(api.app).put('/api/v1/admin/warehouses').set('Authorization', floor.tenant.auth).send([{ id: 9, name: 'X', timeZone: 'Mars/Olympus' }]);
    expect(tz.status).toBe(400);
    expect(tz.body.code).toBe('validation-failed');
  });

  it('npm run cli -- stats rebuild restores deleted roll-ups', async () => {
    const before = (await get('/insights/stats', { from, to })).body;
    // The refusals by reason are rebuilt too: the floor's refused scan is among them.
    expect(before.refusalsByReason).toContainEqual({ code: 'barcode-not-recognized', count: expect.any(Number) });
    const beforeUnits = (await get('/insights/units/sorted', { from, to, warehouseId: floor.warehouseId })).body;
    const em = api.runtime.orm.em.fork();
    await em.execute('delete from stats_hour where client_id = ?', [floor.tenant.clientId]);
    await em.execute('delete from stats_day where client_id = ?', [floor.tenant.clientId]);
    expect((await get('/insights/stats', { from, to })).body.scans).toBe(0);
    const day = (d: string, shift: number) => new Date(Date.parse(d) + shift * 86_400_000).toISOString().slice(0, 10);
    const [first, last] = [day(from, -1), day(to, 1)];
    const days = Math.round((Date.parse(last) - Date.parse(first)) / 86_400_000) + 1;
    const run = await cliRun(['stats', 'rebuild', '--from', first, '--to', last, '--client-id', String(floor.tenant.clientId)], api.runtime.config.DATABASE_URL);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(`stats rebuild [${'#'.repeat(30)}] ${days}/${days} days 100%`);
    // Every event that counts (all but session.started), and no other.
    expect(JSON.parse(run.stdout.trim())).toMatchObject({ from: first, to: last, days, events: (await outboxRows()).filter((e) => e.type !== 'session.started').length });
    expect((await get('/insights/stats', { from, to })).body).toEqual(before);
    expect((await get('/insights/units/sorted', { from, to, warehouseId: floor.warehouseId })).body).toEqual(beforeUnits);
    // The consumer, after the rebuild, has nothing to add: the rebuild counted what it had counted.
    expect(await consumeAll(api.runtime, EVENT_CONSUMERS.stats)).toBe(0);
    expect((await get('/insights/stats', { from, to })).body).toEqual(before);
  }, 90_000);
});
