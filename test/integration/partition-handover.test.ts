import request from 'supertest';
import { createRedisConnection } from '../../shared/redis/connection';
import { partitionOf } from '../../shared/commands/partitioning';
import { leaseKey } from '../../shared/commands/partition-leases';
import { addOrders, addProducts, addSlots, addWall, addWarehouse } from '../support/fixtures';
import { newTenant, signedInEmployee, startTestApi, uniqueSuffix, waitFor, type TestApi } from '../support/test-api';
import { spawnWorkerProcess, stopWorkerProcess, waitUntilReady, workerOutput, type WorkerProcess } from '../support/worker-process';

/*
 * Two sorting processes share the wall partitions through their leases (docs/operations.md "Leases").
 * One is killed under traffic: its walls move to the other once its leases run out, and nothing is
 * lost or applied twice (every scan is retried with its Idempotency-Key until it is answered). Then a
 * third process joins and the survivor is stopped with SIGTERM: it hands its partitions back at once,
 * so the newcomer holds them all within a tick, long before a lease would run out.
 */

jest.setTimeout(240_000);
process.env.COMMAND_TIMEOUT_MS = '30000';
const TTL_MS = 10_000;

describe('partitions move between sorting processes', () => {
  let api: TestApi;
  const workers: WorkerProcess[] = [];
  const redis = () => createRedisConnection(api.runtime.config.REDIS_URL, { redisOptions: { maxRetriesPerRequest: 2 } });

  beforeAll(async () => {
    api = await startTestApi(); // the commands are applied only by the processes below
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => stopWorkerProcess(w)));
    await api?.close();
  });

  const spawn = async (label: string) => {
    const w = spawnWorkerProcess(label, { direct: true, env: { SORTING_LEASE_TTL_MS: String(TTL_MS) } });
    workers.push(w);
    await waitUntilReady(w);
    return w;
  };

  /** The holder (pid) of each partition, read from the leases. */
  async function holders(): Promise<Map<number, number>> {
    const r = redis();
    try {
      const out = new Map<number, number>();
      for (let p = 0; p < api.runtime.config.QUEUE_PARTITIONS; p++) {
        const token = await r.get(leaseKey(api.runtime.config.QUEUE_PREFIX, p));
        if (token) out.set(p, Number(token.split(':')[1]));
      }
      return out;
    } finally {
      r.disconnect();
    }
  }
  const heldBy = async (pid: number) => [...(await holders()).values()].filter((h) => h === pid).length;

  it('a killed process leaves its walls to the other, and a stopped one hands them over at once', async () => {
    const partitions = api.runtime.config.QUEUE_PARTITIONS;
    const a = await spawn('sorting A');
    const b = await spawn('sorting B');
    try {
      await waitFor(async () => (await heldBy(a.child.pid!)) === partitions / 2 && (await heldBy(b.child.pid!)) === partitions / 2, {
        timeoutMs: 30_000,
        what: 'an even share',
      });
      const holderOf = await holders();

      // Four walls on four partitions, two of each process, one sorter each.
      const tenant = await newTenant(api, 'Handover');
      const em = api.runtime.orm.em.fork();
      const wh = await addWarehouse(em, tenant.clientId, { id: 1 });
      await addProducts(em, tenant.clientId, [{ sku: 'SKU-A' }]);
      // Plenty of units: the walls B holds keep scanning at full speed while A's wait for its leases to run out.
      await addOrders(em, tenant.clientId, Array.from({ length: 1000 }, (_, i) => ({ id: i + 1, warehouseId: wh.id, items: [{ sku: 'SKU-A', qty: 10 }] })));
      const walls: { id: number; holder: number }[] = [];
      const taken = new Set<number>();
      for (let i = 0; walls.length < 4; i++) {
        if (i > 80) throw new Error('could not place the walls');
        const wall = await addWall(em, tenant.clientId, { name: `Wall ${uniqueSuffix()}`, warehouseId: wh.id });
        const p = partitionOf(wall.id, partitions);
        const holder = holderOf.get(p)!;
        if (taken.has(p) || walls.filter((w) => w.holder === holder).length === 2) continue;
        taken.add(p);
        walls.push({ id: wall.id, holder });
        await addSlots(em, tenant.clientId, wall.id, 10);
      }
      const sorters = await Promise.all(
        walls.map(async (w, i) => {
          const s = await signedInEmployee(api, tenant, { roles: ['Sorter'] });
          const session = await request(api.app).post(`/api/v1/walls/${w.id}/sessions`).set('Authorization', s.auth).send({});
          expect(session.status).toBe(200);
          return { ...s, wall: w, token: session.body.token as string, n: i };
        }),
      );

      // Each sorter scans and confirms; a 503 or 504 is retried with the same key until it is answered.
      const answered = new Map<number, { at: number; wall: number }>();
      let stop = false;
      let keys = 0;
      const loops = sorters.map(async (s) => {
        while (!stop) {
          const key = `handover-${s.n}-${++keys}`;
          let res: request.Response;
          do {
            res = await request(api.app).post('/api/v1/sort-box-items').set('Authorization', s.auth).set('Idempotency-Key', key).send({ sessionToken: s.token, barcode: 'SKU-A' });
          } while (res.status === 503 || res.status === 504);
          if (res.status !== 200) throw new Error(`scan answered ${res.status}: ${JSON.stringify(res.body)}`);
          answered.set(res.body.id, { at: Date.now(), wall: s.wall.id });
          let ok: request.Response;
          do {
            ok = await request(api.app).patch(`/api/v1/sort-box-items/${res.body.id}/confirm`).set('Authorization', s.auth).send({});
          } while (ok.status === 503 || ok.status === 504);
          // After a retry the first confirm may have been applied already.
          if (!(ok.status === 200 || ok.body.code === 'item-already-confirmed')) throw new Error(`confirm answered ${ok.status}: ${JSON.stringify(ok.body)}`);
          if (ok.status === 200 && ok.body.remainingUnits === 0) {
            // The order is complete (one line): the shipper empties the slot for the next one.
            let released: request.Response;
            do {
              released = await request(api.app).post(`/api/v1/sort-boxes/B-${ok.body.crc}/release`).set('Authorization', s.auth);
            } while (released.status === 503 || released.status === 504);
            if (!(released.status === 200 || released.body.code === 'slot-not-complete')) throw new Error(`release answered ${released.status}: ${JSON.stringify(released.body)}`);
          }
        }
      });
      const running = Promise.all(loops);

      await waitFor(() => answered.size >= 20, { timeoutMs: 60_000, what: '20 scans before the kill' });
      await stopWorkerProcess(a, 'SIGKILL');
      const killedAt = Date.now();
      // The walls of A's partitions answer again once its leases ran out and B took them.
      const aWalls = walls.filter((w) => w.holder === a.child.pid).map((w) => w.id);
      await waitFor(() => aWalls.every((id) => [...answered.values()].some((x) => x.wall === id && x.at > killedAt)), {
        timeoutMs: TTL_MS + 40_000,
        what: "A's walls to answer again",
      });
      const movedAfterMs = Math.max(...aWalls.map((id) => Math.min(...[...answered.values()].filter((x) => x.wall === id && x.at > killedAt).map((x) => x.at)))) - killedAt;
      expect(movedAfterMs).toBeLessThan(TTL_MS + 10_000);
      expect(await heldBy(b.child.pid!)).toBe(partitions);

      // A newcomer shares B's partitions; then B stops with SIGTERM and hands them all over at once.
      const c = await spawn('sorting C');
      await waitFor(async () => (await heldBy(c.child.pid!)) === partitions / 2, { timeoutMs: 30_000, what: 'C to take its share' });
      const stoppingAt = Date.now();
      await stopWorkerProcess(b, 'SIGTERM');
      await waitFor(async () => (await heldBy(c.child.pid!)) === partitions, { timeoutMs: TTL_MS, intervalMs: 20, what: 'C to hold every partition' });
      const handedOverMs = Date.now() - stoppingAt;
      expect(handedOverMs).toBeLessThan(TTL_MS / 2);
      const afterStop = answered.size;
      await waitFor(() => answered.size >= afterStop + 8, { timeoutMs: 60_000, what: 'scans after the hand-over' });
      stop = true;
      await running;
      process.stdout.write(`\nhand-over figures: ${JSON.stringify({ scans: answered.size, movedAfterKillMs: movedAfterMs, handedOverOnSigtermMs: handedOverMs })}\n`);

      // Nothing lost, nothing applied twice.
      const count = async (sql: string) => Number((await api.runtime.orm.em.fork().execute<{ n: string }[]>(sql, [tenant.clientId]))[0]!.n);
      const items = await count('select count(*) as n from sort_box_item where client_id = ?');
      expect(items).toBe(answered.size);
      expect(await count("select count(*) as n from outbox_event where client_id = ? and type = 'sort-box-item.created'")).toBe(items);
      expect(await count('select coalesce(sum(pending_qty + confirmed_qty), 0) as n from order_item where client_id = ?')).toBe(items);
      expect(await count("select count(*) as n from sort_box_item where client_id = ? and status = 'Confirmed'")).toBe(items);
    } catch (err) {
      (err as Error).message += `\n${workerOutput(workers)}`;
      throw err;
    }
  });
});
