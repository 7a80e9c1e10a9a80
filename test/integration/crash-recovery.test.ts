import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { Client as PgClient } from 'pg';
import { createRedisConnection } from '../../shared/redis/connection';
import { sortingHandlers } from '../../workers/sorting/sorting.handlers';
import type { CommandHandlers, CommandJobInfo } from '../../shared/queue/command-job';
import type { CommandPayloads } from '../../shared/queue/commands';
import { commandQueueName, partitionOf } from '../../shared/queue/partitioning';
import { startTestApi, waitFor, type TestApi } from '../support/test-api';
import { buildFloor, connect, scan, type Floor } from '../support/sorting-floor';
import { spawnWorkerProcess, stopWorkerProcess, waitUntilReady, workerOutput, type WorkerProcess } from '../support/worker-process';

/*
 * A worker may die in the middle of a command, or be cut off from Redis after it committed. BullMQ
 * then hands the job out again (commands are never retried otherwise); the command must take
 * effect once and its caller must get one answer, the same as if nothing had happened.
 */

jest.setTimeout(90_000);
// The caller waits for a crashed worker's job to be handed out again (lock 5 s + stall check 2.5 s).
process.env.COMMAND_TIMEOUT_MS = '30000';

async function counts(api: TestApi, clientId: number): Promise<{ items: number; applied: Record<string, number>; pending: number; confirmed: number }> {
  const em = api.runtime.orm.em.fork();
  const [{ n }] = await em.execute<{ n: string }[]>('select count(*) as n from sort_box_item where client_id = ?', [clientId]);
  const applied = await em.execute<{ name: string; n: string }[]>('select name, count(*) as n from applied_command where client_id = ? group by name', [clientId]);
  const [line] = await em.execute<{ pending: string; confirmed: string }[]>(
    'select coalesce(sum(pending_qty), 0) as pending, coalesce(sum(confirmed_qty), 0) as confirmed from order_item where client_id = ?',
    [clientId],
  );
  return {
    items: Number(n),
    applied: Object.fromEntries(applied.map((r) => [r.name, Number(r.n)])),
    pending: Number(line.pending),
    confirmed: Number(line.confirmed),
  };
}

describe('crash recovery: a worker killed mid-command', () => {
  let api: TestApi;
  const workers: WorkerProcess[] = [];

  beforeAll(async () => {
    api = await startTestApi(); // commands are applied only by the worker processes below
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => stopWorkerProcess(w)));
    await api?.close();
  });

  it('hands the job to another worker, which applies it once and answers the waiting caller', async () => {
    const first = spawnWorkerProcess('sorting worker A', { direct: true });
    workers.push(first);
    const pg = new PgClient({ connectionString: api.runtime.config.DATABASE_URL });
    await pg.connect();
    try {
      await waitUntilReady(first);
      const floor = await buildFloor(api, { orders: [{ id: 1, items: [{ sku: 'SKU-A', qty: 1 }] }] });
      const s1 = await floor.sorter(1);
      const session = await connect(api, floor, s1.auth);
      expect(session.status).toBe(200);

      // Hold the wall row, so the worker takes the scan's job and then waits inside the command.
      await pg.query('begin');
      await pg.query('select id from wall where id = $1 for update', [floor.wallId]);
      const answer = scan(api, s1.auth, session.body.token, 'SKU-A');
      let activity: unknown[] = [];
      await waitFor(
        async () => {
          // Not on the connection holding the lock: inside a transaction pg_stat_activity is a snapshot.
          const rows = await api.runtime.orm.em.fork().execute<{ pid: number; state: string; wait_event_type: string | null; query: string }[]>(
            `select pid, state, wait_event_type, query from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`,
          );
          activity = rows;
          return rows.some((r) => r.wait_event_type === 'Lock' && /\bwall\b[\s\S]*for update/i.test(r.query));
        },
        { timeoutMs: 20_000, what: 'the worker to wait for the wall inside the scan command' },
      ).catch((err: Error) => {
        throw new Error(`${err.message}\n${JSON.stringify(activity, null, 1)}`);
      });
      await stopWorkerProcess(first, 'SIGKILL');
      await pg.query('rollback');

      // Another worker finds the job stalled (its lock expired with the dead worker) and runs it.
      const second = spawnWorkerProcess('sorting worker B', { direct: true });
      workers.push(second);
      await waitUntilReady(second);
      const res = await answer;
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 200, code: undefined });
      expect(res.body).toMatchObject({ orderId: 1, sku: 'SKU-A', status: 'PendingConfirmation', units: 1 });

      expect(await counts(api, floor.tenant.clientId)).toEqual({ items: 1, applied: { 'session.start': 1, 'item.scan': 1 }, pending: 1, confirmed: 0 });
      // The job was started twice, the second time by worker B.
      const [applied] = await api.runtime.orm.em
        .fork()
        .execute<{ partition: number; job_id: string }[]>("select partition, job_id from applied_command where client_id = ? and name = 'item.scan'", [floor.tenant.clientId]);
      expect(applied!.partition).toBe(partitionOf(floor.wallId, api.runtime.config.QUEUE_PARTITIONS));
      const redis = createRedisConnection(api.runtime.config.REDIS_URL, { redisOptions: { maxRetriesPerRequest: 2 } });
      try {
        const job = await redis.hgetall(`${api.runtime.config.QUEUE_PREFIX}:${commandQueueName(applied!.partition)}:${applied!.job_id}`);
        expect(Number(job.ats)).toBe(2);
        expect(job.pb).toMatch(new RegExp(`:${second.child.pid}$`));
      } finally {
        redis.disconnect();
      }
      // Its log may reach us a moment after the answer did.
      await waitFor(() => second.output.includes('command job stalled'), { timeoutMs: 5_000, what: "worker B's stalled-job warning" });

      // And the flow goes on: the sorter confirms the unit the crashed worker never placed.
      const ok = await request(api.app).patch(`/api/v1/sort-box-items/${res.body.id}/confirm`).set('Authorization', s1.auth);
      expect(ok.status).toBe(200);
      expect(ok.body).toMatchObject({ status: 'Confirmed', confirmedUnits: 1 });
    } catch (err) {
      const e = err as Error;
      e.message = `${e.message}\n${workerOutput(workers)}`;
      throw e;
    } finally {
      await pg.end();
    }
  });
});

describe('crash recovery: a command delivered twice (same command id) takes effect once', () => {
  let api: TestApi;
  let handlers: CommandHandlers;
  let floor: Floor;
  let sorter: { auth: string; userId: number };
  let token: string;

  beforeAll(async () => {
    // In-process workers only to connect the sorter; the commands under test call the handlers directly.
    api = await startTestApi({ workers: ['sorting'] });
    handlers = sortingHandlers({ orm: api.runtime.orm, log: api.runtime.log, sessionIdleTimeoutMs: api.runtime.config.SESSION_IDLE_TIMEOUT_MS });
  });
  afterAll(async () => {
    await api?.close();
  });

  beforeEach(async () => {
    floor = await buildFloor(api, { orders: [{ id: 1, items: [{ sku: 'SKU-A', qty: 3 }] }] });
    sorter = await floor.sorter(1);
    const session = await connect(api, floor, sorter.auth);
    expect(session.status).toBe(200);
    token = session.body.token as string;
  });

  const job = (jobId: number): CommandJobInfo => ({ commandId: randomUUID(), partition: partitionOf(floor.wallId, api.runtime.config.QUEUE_PARTITIONS), jobId });
  const scanPayload = (): CommandPayloads['item.scan'] => ({
    clientId: floor.tenant.clientId,
    wallId: floor.wallId,
    userId: sorter.userId,
    roles: ['Sorter'],
    sessionToken: token,
    barcode: 'SKU-A',
    barcodeInputMethod: 'Scanned',
    idempotencyKey: null,
  });

  it('a scan handed out again answers the first answer and creates no second item', async () => {
    const info = job(1_000_001);
    const once = await handlers['item.scan'](scanPayload(), info);
    const twice = await handlers['item.scan'](scanPayload(), info);
    expect(once.ok).toBe(true);
    expect(twice).toEqual(once);
    expect(await counts(api, floor.tenant.clientId)).toEqual({ items: 1, applied: { 'session.start': 1, 'item.scan': 1 }, pending: 1, confirmed: 0 });

    // A new command (another id) is a new scan.
    const other = await handlers['item.scan'](scanPayload(), job(1_000_002));
    expect(other.ok && once.ok && other.value.id !== once.value.id).toBe(true);
    expect((await counts(api, floor.tenant.clientId)).items).toBe(2);
  });

  it('a confirm handed out again answers Confirmed again (not item-already-confirmed) and counts its units once', async () => {
    const scanned = await handlers['item.scan'](scanPayload(), job(1_000_011));
    if (!scanned.ok) throw new Error(`scan refused: ${scanned.problem.code}`);
    const confirm: CommandPayloads['item.confirm'] = {
      clientId: floor.tenant.clientId, wallId: floor.wallId, userId: sorter.userId, roles: ['Sorter'], itemId: scanned.value.id, units: 2, barcode: null,
    };
    const info = job(1_000_012);
    const once = await handlers['item.confirm'](confirm, info);
    const twice = await handlers['item.confirm'](confirm, info);
    expect(once).toMatchObject({ ok: true, value: { status: 'Confirmed', confirmedUnits: 2 } });
    expect(twice).toEqual(once);
    expect(await counts(api, floor.tenant.clientId)).toEqual({ items: 1, applied: { 'session.start': 1, 'item.scan': 1, 'item.confirm': 1 }, pending: 0, confirmed: 2 });

    // The same confirm as a new command is refused as docs/api.md §7 says.
    const again = await handlers['item.confirm'](confirm, job(1_000_013));
    expect(again).toMatchObject({ ok: false, problem: { code: 'item-already-confirmed' } });
  });

  it('a refused command delivered twice is refused twice and changes nothing', async () => {
    const payload = { ...scanPayload(), barcode: 'NOPE-404' };
    const info = job(1_000_021);
    const once = await handlers['item.scan'](payload, info);
    const twice = await handlers['item.scan'](payload, info);
    expect(once).toMatchObject({ ok: false, problem: { code: 'barcode-not-recognized' } });
    expect(twice).toEqual(once);
    expect(await counts(api, floor.tenant.clientId)).toEqual({ items: 0, applied: { 'session.start': 1 }, pending: 0, confirmed: 0 });
  });

  it('two deliveries of one scan running at the same time (a stalled job handed out while the first still runs) take effect once', async () => {
    const info = job(1_000_031);
    const [a, b] = await Promise.all([handlers['item.scan'](scanPayload(), info), handlers['item.scan'](scanPayload(), info)]);
    expect(a).toMatchObject({ ok: true });
    expect(b).toEqual(a);
    expect(await counts(api, floor.tenant.clientId)).toEqual({ items: 1, applied: { 'session.start': 1, 'item.scan': 1 }, pending: 1, confirmed: 0 });
  });
});
