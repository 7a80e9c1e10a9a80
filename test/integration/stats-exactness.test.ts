import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { EntityManager } from '@mikro-orm/postgresql';
import { BARCODE_INPUT_METHODS } from '../../shared/db/entities/sort-box-item.entity';
import type { WallEvent } from '../../shared/events/channels';
import { rebuildStats } from '../../shared/statistics/rebuild-stats.use-case';
import { consumeOnce, type EventConsumer } from '../../workers/pipeline/consumer-runner';
import { EVENT_CONSUMERS } from '../support/event-consumers';
import { relayOnce } from '../../workers/outbox/relay.use-case';
import type { TestApi } from '../support/test-api';
import {
  getDailyOrderStats,
  getDailyUnitStats,
  getOrderStatsForRange,
  getSortingStats,
  getUnitStatsForRange,
  getWallPerSlotStats,
  getWallScanningStats,
} from '../../services/api/use-cases/insights/insights.use-case';
import { addSlots, addWall, addWarehouse } from '../support/fixtures';
import { refDailyHours, refDays, refSlotsUsed, refSortingStats, refWallScanning, type RefScope } from '../support/insights-reference';
import { newTenant, useTestApi } from '../support/test-api';

/*
 * Exactness: random event streams (scans, refusals of scans and of other commands, confirms of several
 * units, cancels, swaps, completions, releases, session events) are committed in random order and
 * chunks, relayed in random batches and read by the statistics consumer in random batches, with batches
 * that crash after applying (rolled back) and a second consumer racing the first; every insight must
 * then equal the same figure computed with plain SQL over the raw events (test/support/insights-reference.ts).
 * Then the roll-ups are deleted and rebuilt from the raw events, and must answer the same again.
 */

const BASE = Date.parse('2026-11-10T00:00:00Z');
const SPAN_MIN = 3 * 24 * 60;
const USERS = [101, 102, 103];
const SKUS = ['SKU-A', 'SKU-B', 'SKU-C', 'SKU-D'];

type Slot = { crc: string; position: number };
interface World {
  clientId: number;
  warehouses: number[];
  walls: { id: number; warehouseId: number | null; slots: Slot[] }[];
}

const at = (minute: number, ms: number) => new Date(BASE + minute * 60_000 + ms);

const actionArb = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('scan' as const),
      wall: fc.nat(2), slot: fc.nat(2), user: fc.nat(2), sku: fc.nat(3), method: fc.nat(BARCODE_INPUT_METHODS.length - 1),
      minute: fc.nat(SPAN_MIN), ms: fc.nat(59_999),
      then: fc.oneof(
        fc.record({ kind: fc.constant('confirm' as const), units: fc.integer({ min: 1, max: 4 }), after: fc.nat(300_000) }),
        fc.record({ kind: fc.constant('cancel' as const), after: fc.nat(300_000) }),
        fc.record({ kind: fc.constant('swap-confirm' as const), to: fc.nat(2), units: fc.integer({ min: 1, max: 3 }), after: fc.nat(300_000) }),
        fc.constant({ kind: 'none' as const }),
      ),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('refuse' as const),
      wall: fc.integer({ min: -1, max: 2 }), user: fc.nat(2), method: fc.option(fc.nat(BARCODE_INPUT_METHODS.length - 1)),
      command: fc.constantFrom('item.scan', 'item.scan', 'item.confirm', 'slot.release'),
      code: fc.constantFrom('barcode-not-recognized', 'no-empty-slot', 'wrong-slot', 'units-exceed-remaining'),
      minute: fc.nat(SPAN_MIN), ms: fc.nat(59_999),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('complete' as const), wall: fc.nat(2), slot: fc.nat(2), minute: fc.nat(SPAN_MIN), ms: fc.nat(59_999), release: fc.boolean() }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('session' as const), wall: fc.nat(2), user: fc.nat(2), minute: fc.nat(SPAN_MIN) }) },
);
type Action = typeof actionArb extends fc.Arbitrary<infer A> ? A : never;

let itemSeq = 0;
let orderSeq = 0;

function eventsOf(world: World, actions: Action[]): WallEvent[] {
  const events: WallEvent[] = [];
  const ev = (wallId: number | null, type: string, when: Date, data: Record<string, unknown>) =>
    events.push({ id: randomUUID(), type, occurredAt: when.toISOString(), clientId: world.clientId, wallId, data });
  for (const a of actions) {
    if (a.kind === 'scan') {
      const wall = world.walls[a.wall];
      const slot = wall.slots[a.slot];
      const created = at(a.minute, a.ms);
      const item = {
        id: ++itemSeq, wallId: wall.id, crc: slot.crc, sorterBarcode: `A-${slot.crc}`, position: slot.position, status: 'PendingConfirmation',
        units: 1, confirmedUnits: 0, orderId: ++orderSeq, sku: SKUS[a.sku], barcode: SKUS[a.sku], barcodeInputMethod: BARCODE_INPUT_METHODS[a.method],
        userId: USERS[a.user], color: 'Red', colorHex: '#E53935', requiredUnits: 5, remainingUnits: 4,
        createdAt: created.toISOString(), confirmedAt: null as string | null, cancelledAt: null as string | null,
      };
      ev(wall.id, 'sort-box-item.created', created, { item, sortBox: { ...slot, wallId: wall.id }, color: 'Red', colorHex: '#E53935' });
      const t = a.then;
      if (t.kind === 'confirm' || t.kind === 'swap-confirm') {
        let where = slot;
        if (t.kind === 'swap-confirm') {
          where = wall.slots[t.to];
          ev(wall.id, 'sort-box-item.swapped', new Date(created.getTime() + 1000), { item: { ...item, crc: where.crc, position: where.position }, from: slot, to: where });
        }
        const when = new Date(created.getTime() + 2000 + t.after);
        ev(wall.id, 'sort-box-item.confirmed', when, {
          item: { ...item, crc: where.crc, position: where.position, status: 'Confirmed', units: t.units, confirmedUnits: t.units, confirmedAt: when.toISOString() },
          sortBox: { ...where, wallId: wall.id },
        });
      } else if (t.kind === 'cancel') {
        const when = new Date(created.getTime() + 1000 + t.after);
        ev(wall.id, 'sort-box-item.cancelled', when, { item: { ...item, status: 'Cancelled', cancelledAt: when.toISOString() }, sortBox: slot });
      }
    } else if (a.kind === 'refuse') {
      const wall = a.wall < 0 ? null : world.walls[a.wall];
      ev(wall?.id ?? null, 'command.refused', at(a.minute, a.ms), {
        command: a.command, code: a.code, detail: 'refused', sessionId: 7, userId: USERS[a.user],
        barcode: 'NOPE', barcodeInputMethod: a.method === null ? null : BARCODE_INPUT_METHODS[a.method], sortBoxItemId: null, crc: null, orderId: null, picklistId: null,
      });
    } else if (a.kind === 'complete') {
      const wall = world.walls[a.wall];
      const slot = wall.slots[a.slot];
      const when = at(a.minute, a.ms);
      const orderId = ++orderSeq;
      ev(wall.id, 'sort-box.completed', when, { sortBox: { ...slot, wallId: wall.id, status: 'Complete', orderId }, orderId });
      if (a.release) ev(wall.id, 'sort-box.released', new Date(when.getTime() + 60_000), { sortBox: { ...slot, status: 'Empty', orderId: null }, orderId, forced: false, userId: 101 });
    } else {
      const wall = world.walls[a.wall];
      ev(wall.id, 'session.started', at(a.minute, 0), { session: { id: 1, wallId: wall.id, userId: USERS[a.user] } });
    }
  }
  return events;
}

/** A deterministic random source. */
function prng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32);
}

/**
 * The transport under test: the events committed in a random order, in random chunks; between the
 * chunks the relay stamps random batches and the statistics consumer reads random batches, some of
 * which crash after applying (their transaction rolls back), while a second consumer races the first.
 * Ends with everything relayed and consumed.
 */
async function deliver(api: TestApi, events: WallEvent[], seed: number, crashEvery: number, batch: number): Promise<void> {
  const rand = prng(seed);
  const order = [...events];
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  let batches = 0;
  const crashing: EventConsumer = {
    ...EVENT_CONSUMERS.stats,
    handle: async (b, tx, ctx) => {
      await EVENT_CONSUMERS.stats.handle(b, tx, ctx);
      if (++batches % crashEvery === 0) throw new Error('the consumer crashed before its commit');
    },
  };
  const consume = async (size: number) => {
    // Two consumers at once: one holds the position, the other is a stand-by (or goes after it).
    const [a, b] = await Promise.allSettled([consumeOnce(api.runtime.ormSql, crashing, size, api.runtime), consumeOnce(api.runtime.ormSql, EVENT_CONSUMERS.stats, size, api.runtime)]);
    for (const r of [a, b]) if (r.status === 'rejected' && !/crashed before its commit/.test(String(r.reason))) throw r.reason;
  };
  for (let i = 0; i < order.length; ) {
    const chunk = order.slice(i, i + 1 + Math.floor(rand() * batch));
    i += chunk.length;
    await storeRaw(api.runtime.orm.em.fork(), chunk);
    if (rand() < 0.7) await relayOnce(api.runtime.ormSql, 1 + Math.floor(rand() * batch));
    if (rand() < 0.7) await consume(1 + Math.floor(rand() * batch));
  }
  while ((await relayOnce(api.runtime.ormSql, 500)).events.length > 0);
  for (;;) {
    const r = await consumeOnce(api.runtime.ormSql, EVENT_CONSUMERS.stats, 1 + Math.floor(rand() * batch), api.runtime);
    if (r.status !== 'done') break;
  }
}

async function storeRaw(em: EntityManager, events: WallEvent[]): Promise<void> {
  await em.execute(
    `insert into outbox_event (event_id, client_id, wall_id, type, occurred_at, data)
     select e.id, e."clientId", e."wallId", e.type, e."occurredAt", e.data
       from jsonb_to_recordset(?::jsonb) as e(id uuid, "clientId" int, "wallId" int, type text, "occurredAt" timestamptz, data jsonb)`,
    [JSON.stringify(events)],
  );
}

const nonZeroHours = (hourly: { hour: number; count: number }[]) => {
  const out: Record<number, number> = {};
  for (const h of hourly) if (h.count !== 0) out[h.hour] = (out[h.hour] ?? 0) + h.count;
  return out;
};
const nonZeroDays = (daily: { date: string; count: number }[]) => Object.fromEntries(daily.filter((d) => d.count !== 0).map((d) => [d.date, d.count]));

async function checkEverything(em: EntityManager, world: World, ranges: { from: Date; to: Date }[]): Promise<void> {
  const c = world.clientId;
  const scopes: RefScope[] = [
    { clientId: c },
    ...world.warehouses.map((warehouseId) => ({ clientId: c, warehouseId })),
    ...world.walls.map((w) => ({ clientId: c, wallId: w.id })),
    { clientId: c, wallId: world.walls[0].id, warehouseId: world.warehouses[1] },
  ];
  for (const { from, to } of ranges) {
    for (const s of scopes) {
      const got = await getSortingStats(em, c, { from, to, warehouseId: s.warehouseId ?? null, wallId: s.wallId ?? null, products: 3 });
      const want = await refSortingStats(em, s, from, to, 3);
      expect({ ...got, averageSecondsToConfirm: null }).toEqual({ ...want, averageSecondsToConfirm: null });
      if (want.averageSecondsToConfirm === null) expect(got.averageSecondsToConfirm).toBeNull();
      else expect(got.averageSecondsToConfirm).toBeCloseTo(want.averageSecondsToConfirm, 2);

      for (const userId of [undefined, USERS[0]]) {
        const units = await getUnitStatsForRange(em, c, { from, to, warehouseId: s.warehouseId ?? null, wallId: s.wallId ?? null, userId: userId ?? null });
        const wantUnits = await refDays(em, s, from, to, 'units', userId);
        expect(units.daily[0].date).toBe(wantUnits.firstDay);
        expect(units.daily[units.daily.length - 1].date).toBe(wantUnits.lastDay);
        expect(nonZeroDays(units.daily)).toEqual(wantUnits.byDay);
        expect(units.total).toBe(Object.values(wantUnits.byDay).reduce((a, b) => a + b, 0));

        const dailyUnits = await getDailyUnitStats(em, c, { date: from, warehouseId: s.warehouseId ?? null, wallId: s.wallId ?? null, userId: userId ?? null });
        const wantDaily = await refDailyHours(em, s, from, 'units', userId);
        expect(dailyUnits.date).toBe(wantDaily.date);
        expect(nonZeroHours(dailyUnits.hourly)).toEqual(wantDaily.byHour);
      }
      const orders = await getOrderStatsForRange(em, c, { from, to, warehouseId: s.warehouseId ?? null, wallId: s.wallId ?? null });
      expect(nonZeroDays(orders.daily)).toEqual((await refDays(em, s, from, to, 'orders')).byDay);
      const dailyOrders = await getDailyOrderStats(em, c, { date: to, warehouseId: s.warehouseId ?? null, wallId: s.wallId ?? null });
      expect(nonZeroHours(dailyOrders.hourly)).toEqual((await refDailyHours(em, s, to, 'orders')).byHour);
    }
    for (const wall of world.walls) {
      const want = await refWallScanning(em, c, wall.id, from, to);
      const got = await getWallScanningStats(em, c, wall.id, { from, to });
      expect(got).toEqual({
        wallId: wall.id, from: want.from, to: want.to, scans: want.scans, confirmed: want.confirmed, cancelled: want.cancelled, failed: want.failed,
        byInputMethod: { ...Object.fromEntries(BARCODE_INPUT_METHODS.map((m) => [m, 0])), ...want.byInputMethod },
      });
      const scanned = await getWallPerSlotStats(em, c, wall.id, { from, to }, 'scans');
      const confirmed = await getWallPerSlotStats(em, c, wall.id, { from, to }, 'confirmed_items');
      expect(scanned.slots.map((x) => x.crc)).toEqual(wall.slots.map((x) => x.crc));
      expect(Object.fromEntries(scanned.slots.filter((x) => x.count).map((x) => [x.crc, x.count]))).toEqual(want.scannedPerSlot);
      expect(Object.fromEntries(confirmed.slots.filter((x) => x.count).map((x) => [x.crc, x.count]))).toEqual(want.confirmedPerSlot);
    }
  }
  // The billing figure from the roll-ups (client scope, slots, UTC days) equals the raw one.
  const [fromRollups] = await em.execute<{ n: number }[]>(
    `select count(distinct dim_key)::int as n from stats_day where client_id = ? and scope = 0 and dim = 4 and confirmed_items > 0
        and bucket >= date '2026-11-01' and bucket < date '2026-12-01'`,
    [c],
  );
  expect(fromRollups.n).toBe(await refSlotsUsed(em, c, '2026-11'));
}

describe('statistics roll-ups are exact against the raw events, whatever the delivery', () => {
  const api = useTestApi();
  // The database is this jest worker's, shared with the suites it ran before: one of them (retention)
  // may have deleted old outbox events and recorded how far back they are complete, which would refuse
  // the rebuilds of the weeks this suite writes. Its own events are complete, so the horizon goes.
  beforeAll(async () => {
    await api.runtime.orm.em.fork().execute(`delete from retention_horizon where kind = 'outbox'`);
  });

  async function newWorld(): Promise<World> {
    const tenant = await newTenant(api, 'Stats');
    const em = api.runtime.orm.em.fork();
    // A zone with whole-hour offsets (and DST), one with a half-hour offset, and a wall without a warehouse (UTC).
    await addWarehouse(em, tenant.clientId, { id: 1, timeZone: 'America/New_York' });
    await addWarehouse(em, tenant.clientId, { id: 2, timeZone: 'Asia/Kolkata' });
    const walls = [];
    for (const warehouseId of [1, 2, null]) {
      const wall = await addWall(em, tenant.clientId, { name: `W${warehouseId}-${randomUUID().slice(0, 6)}`, warehouseId });
      const slots = await addSlots(em, tenant.clientId, wall.id, 3);
      walls.push({ id: wall.id, warehouseId, slots: slots.map((s) => ({ crc: s.crc, position: s.position })) });
    }
    return { clientId: tenant.clientId, warehouses: [1, 2], walls };
  }

  it('after random delivery with crashes and a racing consumer, and again after the roll-ups are deleted and rebuilt', async () => {
    const rangeArb = fc.record({ start: fc.nat(SPAN_MIN), length: fc.nat(2 * 24 * 60), ms: fc.nat(59_999) });
    await fc.assert(
      fc.asyncProperty(
        fc.array(actionArb, { minLength: 1, maxLength: 60 }),
        fc.integer(),
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 1, max: 40 }),
        fc.array(rangeArb, { minLength: 1, maxLength: 2 }),
        async (actions, seed, crashEvery, batch, ranges) => {
          const world = await newWorld();
          const em = api.runtime.orm.em.fork();
          const events = eventsOf(world, actions);
          await deliver(api, events, seed, crashEvery + 1, batch);
          const rs = ranges.map((r) => ({ from: at(r.start, r.ms), to: at(r.start + r.length, 0) }));
          await checkEverything(em, world, rs);

          // Delete this client's roll-ups and rebuild them from the raw events.
          await em.execute('delete from stats_hour where client_id = ?', [world.clientId]);
          await em.execute('delete from stats_day where client_id = ?', [world.clientId]);
          await rebuildStats(api.runtime.config.DATABASE_URL, { from: '2026-11-08', to: '2026-11-16', clientId: world.clientId });
          await checkEverything(em, world, rs);
          // The consumer after the rebuild has nothing to add.
          expect((await consumeOnce(api.runtime.ormSql, EVENT_CONSUMERS.stats, 500, api.runtime)).status).toBe('idle');
          await checkEverything(em, world, rs.slice(0, 1));
        },
      ),
      { numRuns: 12 },
    );
  }, 240_000);

  it('a rebuild running while the consumer applies batches leaves every figure exact', async () => {
    const sample = fc.sample(fc.array(actionArb, { minLength: 150, maxLength: 150 }), { numRuns: 1, seed: 42 })[0];
    const world = await newWorld();
    const em = api.runtime.orm.em.fork();
    const events = eventsOf(world, sample);
    const rand = prng(7);
    const shuffled = [...events].sort(() => rand() - 0.5);
    // Half committed, relayed and counted before; the rest committed, relayed and counted while the rebuild runs.
    const half = Math.floor(shuffled.length / 2);
    await storeRaw(em, shuffled.slice(0, half));
    while ((await relayOnce(api.runtime.ormSql, 10)).events.length > 0);
    while ((await consumeOnce(api.runtime.ormSql, EVENT_CONSUMERS.stats, 10, api.runtime)).status === 'done');
    const rest = (async () => {
      for (let i = half; i < shuffled.length; i += 10) {
        await storeRaw(api.runtime.orm.em.fork(), shuffled.slice(i, i + 10));
        await relayOnce(api.runtime.ormSql, 7);
        await consumeOnce(api.runtime.ormSql, EVENT_CONSUMERS.stats, 5, api.runtime);
      }
      while ((await relayOnce(api.runtime.ormSql, 10)).events.length > 0);
      while ((await consumeOnce(api.runtime.ormSql, EVENT_CONSUMERS.stats, 10, api.runtime)).status === 'done');
    })();
    const rebuilt = rebuildStats(api.runtime.config.DATABASE_URL, { from: '2026-11-08', to: '2026-11-16', clientId: world.clientId });
    await Promise.all([rest, rebuilt]);
    await checkEverything(em, world, [
      { from: at(0, 0), to: at(SPAN_MIN, 0) },
      { from: at(600, 1234), to: at(2000, 0) },
    ]);
  }, 120_000);
});
