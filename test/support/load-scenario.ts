import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import request from 'supertest';
import { Employee } from '../../shared/db/entities';
import { hashSecret } from '../../shared/auth/password';
import { commandQueueName, partitionOf } from '../../shared/commands/partitioning';
import { createRedisConnection } from '../../shared/redis/connection';
import { addOrders, addProducts, addSlots, addWall, addWarehouse, type OrderInput } from './fixtures';
import { newTenant, signIn, uniqueSuffix, waitFor, type Tenant, type TestApi } from './test-api';
import { leaseKey } from '../../shared/commands/partition-leases';
import { seededRandom } from '../../shared/domain/prng';

/*
 * The load scenario of the concurrency tests (single Redis: test/integration/concurrency.test.ts;
 * Redis Cluster: test/integration/redis-cluster.test.ts). Eighteen sorters on three walls of one
 * warehouse scan, confirm, cancel and release at once, for fewer units than they scan, so walls race
 * for the same orders and slots run out. Afterwards the database must tell a consistent story, and
 * each wall's commands must have been applied one at a time in arrival order, by both worker processes.
 */

export type LoadFigures = Record<string, unknown>;

const WALLS = 3;
const SORTERS_PER_WALL = 6;
const SLOTS_PER_WALL = 6;
const ORDERS = 40;
const ITERATIONS = 25;
const SKUS = ['SKU-1', 'SKU-2', 'SKU-3', 'SKU-4', 'SKU-5'];
const upcOf = (i: number) => `0123456789${String(i + 10)}`;
const aliasOf = (i: number) => `ALIAS-${i + 1}`;

// ---------------------------------------------------------------------------------------------
// Seeded randomness: LOAD_SEED=<seed> repeats a run's floor and choices (not its interleaving)

export const SEED = Number(process.env.LOAD_SEED ?? Math.floor(Math.random() * 2 ** 31));

function shuffled<T>(xs: readonly T[], rng: () => number): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The floor

interface Sorter {
  auth: string;
  userId: number;
  wallId: number;
  token?: string;
}

interface LoadFloor {
  tenant: Tenant;
  wallIds: number[];
  sorters: Sorter[];
  totalDemand: number;
  lineCount: number;
}

async function buildLoadFloor(api: TestApi, rng: () => number, partitions: number): Promise<LoadFloor> {
  const tenant = await newTenant(api, 'Load');
  const clientId = tenant.clientId;
  const em = api.runtime.orm.em.fork();
  const wh = await addWarehouse(em, clientId, { id: 1, name: 'Jackson St DC' });
  await addProducts(em, clientId, SKUS.map((sku, i) => ({ sku, upc: upcOf(i), aliases: [aliasOf(i)] })));

  const orders: OrderInput[] = [];
  let totalDemand = 0;
  const priorities = ['Low', 'Normal', 'Normal', 'High'] as const;
  for (let id = 1; id <= ORDERS; id++) {
    const skus = shuffled(SKUS, rng).slice(0, 1 + Math.floor(rng() * 3));
    const items = skus.map((sku) => ({ sku, qty: 1 + Math.floor(rng() * 3) }));
    totalDemand += items.reduce((n, l) => n + l.qty, 0);
    orders.push({
      id,
      warehouseId: wh.id,
      priority: priorities[Math.floor(rng() * priorities.length)],
      orderDate: new Date(Date.now() - Math.floor(rng() * 48) * 3600_000),
      items,
    });
  }
  await addOrders(em, clientId, orders);

  // Walls on distinct partitions, so that their commands really run in parallel and race for the
  // same orders, and on partitions of both worker processes (each holds its share: leases), so both
  // apply commands. A wall that hashes onto a taken partition stays without slots and is never used.
  const holderOf = await partitionHolders(api, partitions);
  const wallIds: number[] = [];
  const taken = new Set<number>();
  const holders = new Set<string>();
  for (let attempt = 0; wallIds.length < WALLS; attempt++) {
    if (attempt > 60) throw new Error('could not place three walls on distinct partitions of both worker processes');
    const wall = await addWall(em, clientId, { name: `Wall ${uniqueSuffix()}`, warehouseId: wh.id, maxSorters: SORTERS_PER_WALL });
    const partition = partitionOf(wall.id, partitions);
    if (taken.has(partition)) continue;
    const holder = holderOf.get(partition)!;
    if (wallIds.length === WALLS - 1 && holders.size === 1 && holders.has(holder)) continue;
    taken.add(partition);
    holders.add(holder);
    wallIds.push(wall.id);
    await addSlots(em, clientId, wall.id, SLOTS_PER_WALL);
  }

  const passwordHash = await hashSecret('password-1', 4);
  const employees = wallIds.flatMap((wallId, w) =>
    Array.from({ length: SORTERS_PER_WALL }, (_, s) => {
      const email = `sorter-${w}-${s}-${uniqueSuffix()}@example.com`;
      const emp = em.create(Employee, {
        clientId, email, firstName: `Sorter ${w}.${s}`, lastName: 'Load', roles: ['Sorter'], passwordHash, isActive: true, createdAt: new Date(),
      });
      return { emp, email, wallId };
    }),
  );
  await em.flush();
  const sorters = await Promise.all(
    employees.map(async ({ emp, email, wallId }) => ({ auth: `Bearer ${await signIn(api.app, email, 'password-1')}`, userId: emp.id, wallId })),
  );
  return { tenant, wallIds, sorters, totalDemand, lineCount: orders.reduce((n, o) => n + o.items.length, 0) };
}

/**
 * Which process holds each command partition (the lease's holder: `<host>:<pid>:<nonce>`), once the two
 * sorting processes have shared them out evenly.
 */
async function partitionHolders(api: TestApi, partitions: number): Promise<Map<number, string>> {
  const redis = createRedisConnection(api.runtime.config.REDIS_URL, { redisOptions: { maxRetriesPerRequest: 2 } });
  try {
    return await waitFor(
      async () => {
        const holders = new Map<number, string>();
        // One command per key, not one pipeline: on a cluster a pipeline may only touch one slot.
        for (let p = 0; p < partitions; p++) {
          const token = await redis.get(leaseKey(api.runtime.config.QUEUE_PREFIX, p));
          if (token) holders.set(p, token);
        }
        const counts = new Map<string, number>();
        for (const t of holders.values()) counts.set(t, (counts.get(t) ?? 0) + 1);
        const even = holders.size === partitions && counts.size === 2 && [...counts.values()].every((n) => n === Math.ceil(partitions / 2) || n === Math.floor(partitions / 2));
        return even ? holders : null;
      },
      { timeoutMs: 30_000, intervalMs: 100, what: 'the two sorting processes to share the partitions' },
    );
  } finally {
    redis.disconnect();
  }
}

// ---------------------------------------------------------------------------------------------
// What the sorters saw

/** Answers each operation may give under contention; anything else (any 5xx) is a failure. */
const ALLOWED: Record<string, string[]> = {
  connect: ['200'],
  scan: ['200', '422 no-fulfillable-order', '422 no-empty-slot'],
  'scan-replay': ['200', '422 no-fulfillable-order', '422 no-empty-slot'],
  'confirm-2': ['200', '422 units-exceed-remaining'],
  // The scan reserved this unit, so one unit always fits.
  'confirm-1': ['200'],
  cancel: ['200'],
  'get-wall': ['200'],
  release: ['200', '409 slot-not-complete'],
};

const COMMAND_OF: Record<string, string | null> = {
  connect: 'session.start',
  scan: 'item.scan',
  'scan-replay': 'item.scan',
  'confirm-2': 'item.confirm',
  'confirm-1': 'item.confirm',
  cancel: 'item.cancel',
  'get-wall': null,
  release: 'slot.release',
};

class Ledger {
  readonly tally = new Map<string, number>();
  readonly unexpected: string[] = [];
  /** Item id → what the last 200 answer said about it. */
  readonly items = new Map<number, { status: string; units: number; confirmedUnits: number }>();
  readonly scanAnswerIds: number[] = [];
  readonly replayMismatches: string[] = [];
  readonly okCommands = new Map<string, number>();
  maxLatencyMs = 0;
  readonly latency = new Map<string, number[]>();
  requests = 0;

  record(op: string, res: request.Response, startedAt: number): string {
    const latency = Date.now() - startedAt;
    this.maxLatencyMs = Math.max(this.maxLatencyMs, latency);
    this.latency.set(op, [...(this.latency.get(op) ?? []), latency]);
    this.requests++;
    const answer = res.status === 200 ? '200' : `${res.status} ${res.body?.code ?? '?'}`;
    const key = `${op} ${answer}`;
    this.tally.set(key, (this.tally.get(key) ?? 0) + 1);
    if (!ALLOWED[op]!.includes(answer)) {
      this.unexpected.push(`${op} → ${answer}: ${JSON.stringify(res.body).slice(0, 300)}`);
    }
    const command = COMMAND_OF[op];
    if (res.status === 200 && command) this.okCommands.set(command, (this.okCommands.get(command) ?? 0) + 1);
    return answer;
  }

  noteItem(body: { id: number; status: string; units: number; confirmedUnits: number }): void {
    this.items.set(body.id, { status: body.status, units: body.units, confirmedUnits: body.confirmedUnits });
  }

  count(prefix: string): number {
    let n = 0;
    for (const [k, v] of this.tally) if (k.startsWith(prefix)) n += v;
    return n;
  }
}

/** `iterations`: actions per sorter (25 by default). */
export async function runLoadAndCheck(api: TestApi, server: Server, opts: { iterations?: number } = {}): Promise<LoadFigures> {
  const iterations = opts.iterations ?? ITERATIONS;
  const rng = seededRandom(SEED);
  const partitions = api.runtime.config.QUEUE_PARTITIONS;
  const floor = await buildLoadFloor(api, rng, partitions);
  const clientId = floor.tenant.clientId;
  const http = () => request(server);
  const ledger = new Ledger();

  const connects = await Promise.all(
    floor.sorters.map(async (s) => {
      const t = Date.now();
      const res = await http().post(`/api/v1/walls/${s.wallId}/sessions`).set('Authorization', s.auth).send({});
      ledger.record('connect', res, t);
      s.token = res.body.token as string;
      return res.status;
    }),
  );
  expect(connects.every((s) => s === 200)).toBe(true);

  // Each sorter gets its own stream of choices from the seed, so a run is reproducible per sorter.
  const sorterRngs = floor.sorters.map(() => seededRandom(Math.floor(rng() * 2 ** 31)));

  const scanOnce = async (s: Sorter, barcode: string, key?: string, op = 'scan') => {
    const t = Date.now();
    const req = http().post('/api/v1/sort-box-items').set('Authorization', s.auth);
    if (key) req.set('Idempotency-Key', key);
    const res = await req.send({ sessionToken: s.token, barcode });
    ledger.record(op, res, t);
    return res;
  };

  const sorterLoop = async (s: Sorter, r: () => number) => {
    for (let i = 0; i < iterations; i++) {
      if (r() < 0.1) {
        // The shipper's part: release one Complete slot of the wall, racing the other sorters for it.
        let t = Date.now();
        const wall = await http().get(`/api/v1/walls/${s.wallId}`).set('Authorization', s.auth);
        ledger.record('get-wall', wall, t);
        const complete = ((wall.body?.slots ?? []) as { status: string; shipperBarcode: string }[]).filter((x) => x.status === 'Complete');
        if (complete.length === 0) continue;
        const slot = complete[Math.floor(r() * complete.length)]!;
        t = Date.now();
        const rel = await http().post(`/api/v1/sort-boxes/${slot.shipperBarcode}/release`).set('Authorization', s.auth);
        ledger.record('release', rel, t);
        continue;
      }

      const k = Math.floor(r() * SKUS.length);
      const how = r();
      const barcode = how < 0.6 ? SKUS[k]! : how < 0.75 ? SKUS[k]!.toLowerCase() : how < 0.9 ? upcOf(k) : aliasOf(k).toLowerCase();
      let res: request.Response;
      if (r() < 0.12) {
        // A scanner that resends: the same Idempotency-Key twice at once must create one item.
        const key = randomUUID();
        const [a, b] = await Promise.all([scanOnce(s, barcode, key), scanOnce(s, barcode, key, 'scan-replay')]);
        if (a.status === 200 && b.status === 200 && a.body.id !== b.body.id) {
          ledger.replayMismatches.push(`key ${key}: items ${a.body.id} and ${b.body.id}`);
        }
        res = a.status === 200 ? a : b;
        if (b.status === 200) ledger.scanAnswerIds.push(b.body.id as number);
        if (a.status === 200) ledger.scanAnswerIds.push(a.body.id as number);
      } else {
        res = await scanOnce(s, barcode);
        if (res.status === 200) ledger.scanAnswerIds.push(res.body.id as number);
      }
      if (res.status !== 200) continue;
      const item = res.body as { id: number; sorterBarcode: string; crc: string; status: string; units: number; confirmedUnits: number };
      ledger.noteItem(item);

      const choice = r();
      if (choice < 0.12) {
        const t = Date.now();
        const cancel = await http().patch(`/api/v1/sort-box-items/${item.id}/cancel`).set('Authorization', s.auth);
        if (ledger.record('cancel', cancel, t) === '200') ledger.noteItem(cancel.body);
        continue;
      }
      if (choice < 0.4) {
        const t = Date.now();
        const two = await http().patch(`/api/v1/sort-box-items/${item.id}/confirm?units=2`).set('Authorization', s.auth).send({});
        if (ledger.record('confirm-2', two, t) === '200') {
          ledger.noteItem(two.body);
          continue;
        }
      }
      const t = Date.now();
      const body = r() < 0.5 ? { barcode: r() < 0.5 ? item.sorterBarcode : item.crc.toLowerCase() } : {};
      const one = await http().patch(`/api/v1/sort-box-items/${item.id}/confirm`).set('Authorization', s.auth).send(body);
      if (ledger.record('confirm-1', one, t) === '200') ledger.noteItem(one.body);
    }
  };

  const started = Date.now();
  await Promise.all(floor.sorters.map((s, i) => sorterLoop(s, sorterRngs[i]!)));
  const loadMs = Date.now() - started;

  // ---- What came back over HTTP
  const figures = {
    seed: SEED,
    loadMs,
    requests: ledger.requests,
    maxLatencyMs: ledger.maxLatencyMs,
    meanLatencyMs: Object.fromEntries([...ledger.latency].map(([op, l]) => [op, Math.round(l.reduce((a, b) => a + b, 0) / l.length)])),
    totalDemand: floor.totalDemand,
    scansAttempted: ledger.count('scan '),
    scanReplays: ledger.count('scan-replay '),
    itemsCreated: new Set(ledger.scanAnswerIds).size,
    confirmedUnits: [...ledger.items.values()].filter((i) => i.status === 'Confirmed').reduce((n, i) => n + i.confirmedUnits, 0),
    tally: Object.fromEntries([...ledger.tally.entries()].sort()),
  };
  expect(ledger.unexpected).toEqual([]);
  expect(ledger.replayMismatches).toEqual([]);
  // The workload must really have contended: some scans refused for lack of orders or slots.
  expect(ledger.count('scan 200')).toBeGreaterThan(0);
  expect(ledger.count('scan 422')).toBeGreaterThan(0);

  const em = api.runtime.orm.em.fork();
  const q = <T>(sql: string, params: unknown[] = []) => em.execute<T[]>(sql, params);

  // ---- Items: one row per distinct 200 scan answer, each in the state the last answer reported
  const items = await q<{ id: number; wall_id: number; sort_box_id: number; order_id: number; order_item_id: number; status: string; units: number; confirmed_units: number }>(
    'select id, wall_id, sort_box_id, order_id, order_item_id, status, units, confirmed_units from sort_box_item where client_id = ? order by id',
    [clientId],
  );
  expect(items.map((i) => i.id)).toEqual([...new Set(ledger.scanAnswerIds)].sort((a, b) => a - b));
  const itemDiffs = items
    .map((i) => ({ db: i, http: ledger.items.get(i.id) }))
    .filter(({ db, http }) => !http || http.status !== db.status || http.units !== db.units || http.confirmedUnits !== db.confirmed_units)
    .map(({ db, http }) => ({ id: db.id, db: [db.status, db.units, db.confirmed_units], http: http && [http.status, http.units, http.confirmedUnits] }));
  expect(itemDiffs).toEqual([]);
  // Every scan was confirmed or cancelled by its sorter: nothing may be left pending.
  expect(items.filter((i) => i.status === 'PendingConfirmation')).toEqual([]);

  // ---- Order lines: never over-sorted; every confirmed and pending unit accounted for by items
  const lines = await q<{ id: number; order_id: number; qty: number; confirmed_qty: number; pending_qty: number; item_confirmed: string; item_pending: string }>(
    `select oi.id, oi.order_id, oi.qty, oi.confirmed_qty, oi.pending_qty,
            coalesce(sum(i.confirmed_units) filter (where i.status = 'Confirmed'), 0) as item_confirmed,
            coalesce(sum(i.units) filter (where i.status = 'PendingConfirmation'), 0) as item_pending
       from order_item oi left join sort_box_item i on i.order_item_id = oi.id
      where oi.client_id = ? group by oi.id order by oi.id`,
    [clientId],
  );
  expect(lines).toHaveLength(floor.lineCount);
  expect(lines.filter((l) => l.confirmed_qty + l.pending_qty > l.qty)).toEqual([]);
  expect(lines.filter((l) => Number(l.item_confirmed) !== l.confirmed_qty || Number(l.item_pending) !== l.pending_qty)).toEqual([]);
  const confirmedInDb = lines.reduce((n, l) => n + l.confirmed_qty, 0);
  expect(confirmedInDb).toBe(figures.confirmedUnits);
  const orderDone = new Map<number, boolean>();
  for (const l of lines) orderDone.set(l.order_id, (orderDone.get(l.order_id) ?? true) && l.confirmed_qty === l.qty);

  // ---- Slots now: no order in two slots, no slot with two orders, status agrees with the order
  const slots = await q<{ id: number; wall_id: number; status: string; order_id: number | null }>(
    'select id, wall_id, status, order_id from sort_box where client_id = ? order by id',
    [clientId],
  );
  const slotOfOrder = new Map<number, number>();
  const slotProblems: string[] = [];
  const liveBySlot = new Map<number, typeof items>();
  for (const i of items) if (i.status !== 'Cancelled') liveBySlot.set(i.sort_box_id, [...(liveBySlot.get(i.sort_box_id) ?? []), i]);
  for (const s of slots) {
    if ((s.status === 'Empty') !== (s.order_id === null)) slotProblems.push(`slot ${s.id} is ${s.status} with order ${s.order_id}`);
    if (s.order_id === null) continue;
    if (slotOfOrder.has(s.order_id)) slotProblems.push(`order ${s.order_id} sits in slots ${slotOfOrder.get(s.order_id)} and ${s.id}`);
    slotOfOrder.set(s.order_id, s.id);
    const done = orderDone.get(s.order_id) ?? false;
    if (s.status === 'Complete' && !done) slotProblems.push(`slot ${s.id} is Complete but order ${s.order_id} still needs units`);
    if (s.status === 'Sorting' && done) slotProblems.push(`slot ${s.id} is Sorting but order ${s.order_id} is fully confirmed`);
    if (!(liveBySlot.get(s.id) ?? []).some((i) => i.order_id === s.order_id)) {
      slotProblems.push(`slot ${s.id} holds order ${s.order_id} but no live item of it`);
    }
  }
  const [{ n: slotsPerOrderMax }] = await q<{ n: string | null }>(
    'select max(c) as n from (select count(*) as c from sort_box where client_id = ? and order_id is not null group by order_id) t',
    [clientId],
  );
  expect(Number(slotsPerOrderMax ?? 0)).toBeLessThanOrEqual(1);

  // ---- History of orders: an order's live (not cancelled) items all went into one slot; pending
  // ones into the slot that holds it now; an order that left its slot was released, so complete.
  const wallOfSlot = new Map(slots.map((s) => [s.id, s.wall_id]));
  const liveByOrder = new Map<number, typeof items>();
  for (const i of items) if (i.status !== 'Cancelled') liveByOrder.set(i.order_id, [...(liveByOrder.get(i.order_id) ?? []), i]);
  for (const i of items) {
    if (wallOfSlot.get(i.sort_box_id) !== i.wall_id) slotProblems.push(`item ${i.id} of wall ${i.wall_id} is in slot ${i.sort_box_id} of another wall`);
  }
  for (const [orderId, live] of liveByOrder) {
    const slotIds = new Set(live.map((i) => i.sort_box_id));
    if (slotIds.size > 1) slotProblems.push(`order ${orderId} was sorted into slots ${[...slotIds].join(', ')}`);
    const now = slotOfOrder.get(orderId);
    if (now !== undefined && !slotIds.has(now)) slotProblems.push(`order ${orderId} sits in slot ${now} but its units are in ${[...slotIds].join(', ')}`);
    if (now === undefined && !orderDone.get(orderId)) slotProblems.push(`order ${orderId} left its slot before it was complete`);
    for (const i of live) {
      if (i.status === 'PendingConfirmation' && i.sort_box_id !== now) slotProblems.push(`pending item ${i.id} of order ${orderId} is not in the order's slot`);
    }
  }
  // ---- History of slots: within a wall items are created in application order, so a slot's live
  // items by id show its orders one after another, an order never coming back after the next one.
  for (const [slotId, live] of liveBySlot) {
    const runs: number[] = [];
    for (const i of live) if (runs[runs.length - 1] !== i.order_id) runs.push(i.order_id);
    if (new Set(runs).size !== runs.length) slotProblems.push(`slot ${slotId} held orders ${runs.join(' → ')} (an order came back)`);
    for (const orderId of runs.slice(0, -1)) {
      if (!orderDone.get(orderId)) slotProblems.push(`slot ${slotId} took another order before order ${orderId} was complete`);
    }
  }
  expect(slotProblems).toEqual([]);

  // ---- Applied commands: exactly the successful answers; per wall one partition, arrival order
  const applied = await q<{ wall_id: number; seq: string; job_id: string; partition: number; name: string }>(
    'select wall_id, seq, job_id, partition, name from applied_command where client_id = ? order by wall_id, seq',
    [clientId],
  );
  const appliedByName: Record<string, number> = {};
  for (const a of applied) appliedByName[a.name] = (appliedByName[a.name] ?? 0) + 1;
  expect(appliedByName).toEqual(Object.fromEntries([...ledger.okCommands.entries()].sort()));
  const orderProblems: string[] = [];
  for (const wallId of floor.wallIds) {
    const rows = applied.filter((a) => a.wall_id === wallId);
    const parts = new Set(rows.map((a) => a.partition));
    if (parts.size !== 1 || !parts.has(partitionOf(wallId, partitions))) {
      orderProblems.push(`wall ${wallId}: partitions ${[...parts].join(', ')}, expected ${partitionOf(wallId, partitions)}`);
    }
    for (let k = 1; k < rows.length; k++) {
      if (BigInt(rows[k]!.job_id) <= BigInt(rows[k - 1]!.job_id)) {
        orderProblems.push(`wall ${wallId}: seq ${rows[k]!.seq} has job ${rows[k]!.job_id} after job ${rows[k - 1]!.job_id}`);
      }
    }
  }
  expect(orderProblems).toEqual([]);
  expect(new Set(applied.map((a) => a.wall_id))).toEqual(new Set(floor.wallIds));

  // ---- Both worker processes applied commands (BullMQ keeps each job's worker name as processedBy)
  const redis = createRedisConnection(api.runtime.config.REDIS_URL, { redisOptions: { maxRetriesPerRequest: 2 } });
  let processedBy: Record<string, number>;
  try {
    // One command per job, not one pipeline: on a cluster a pipeline may only touch one slot.
    const answers = await Promise.all(applied.map((a) => redis.hget(`${api.runtime.config.QUEUE_PREFIX}:${commandQueueName(a.partition)}:${a.job_id}`, 'pb')));
    processedBy = {};
    for (const name of answers) {
      const key = typeof name === 'string' ? name : '(unknown)';
      processedBy[key] = (processedBy[key] ?? 0) + 1;
    }
  } finally {
    redis.disconnect();
  }
  const byWorker = Object.entries(processedBy).filter(([name]) => name !== '(unknown)');
  expect(processedBy['(unknown)'] ?? 0).toBe(0);
  expect(byWorker).toHaveLength(2);

  return { ...figures, appliedCommands: applied.length, processedBy: byWorker.map(([, n]) => n) };
}
