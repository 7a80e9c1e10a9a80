import request from 'supertest';
import { Client as PgClient } from 'pg';
import { commandQueueName, partitionOf } from '../../shared/commands/partitioning';
import { createRedisConnection } from '../../shared/redis/connection';
import { waitFor, type TestApi } from './test-api';
import { buildFloor, connect, scan, type Floor } from './sorting-floor';
import { spawnWorkerProcess, stopWorkerProcess, waitUntilReady, workerOutput, type WorkerProcess } from './worker-process';

/*
 * The worker-crash scenario (single Redis: test/integration/crash-recovery.test.ts; Redis Cluster:
 * redis-cluster.test.ts). A worker is killed while it waits inside a scan; another worker process
 * gets the stalled job, applies it once and the waiting caller gets its one answer.
 */

export async function counts(api: TestApi, clientId: number): Promise<{ items: number; applied: Record<string, number>; pending: number; confirmed: number }> {
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

/** Once `worker` is ready: a floor with one order (SKU-A × qty) and its sorter 1 connected. */
export async function sorterConnected(api: TestApi, worker: WorkerProcess, qty: number): Promise<{ floor: Floor; sorter: { auth: string; token: string } }> {
  await waitUntilReady(worker);
  const floor = await buildFloor(api, { orders: [{ id: 1, items: [{ sku: 'SKU-A', qty }] }] });
  const s1 = await floor.sorter(1);
  const session = await connect(api, floor, s1.auth);
  expect(session.status).toBe(200);
  return { floor, sorter: { auth: s1.auth, token: session.body.token as string } };
}

/**
 * Sends a scan while `pg` holds the wall row, so the worker takes the scan's job and then waits inside
 * the command (its write waits at the fence); gives the pending answer (wrapped: an async function would wait for it) once the worker
 * is seen waiting. `pg` stays in its transaction: the caller kills or pauses the worker, then rolls it back.
 */
export async function scanHeldInsideCommand<T>(api: TestApi, pg: PgClient, wallId: number, send: () => Promise<T>): Promise<{ answer: Promise<T> }> {
  await pg.query('begin');
  await pg.query('select id from wall where id = $1 for update', [wallId]);
  const answer = send();
  let activity: unknown[] = [];
  await waitFor(
    async () => {
      // Not on the connection holding the lock: inside a transaction pg_stat_activity is a snapshot.
      const rows = await api.runtime.orm.em.fork().execute<{ pid: number; state: string; wait_event_type: string | null; query: string }[]>(
        `select pid, state, wait_event_type, query from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`,
      );
      activity = rows;
      // The command's one write waits at its fence: the update of the wall row's version.
      return rows.some((r) => r.wait_event_type === 'Lock' && r.query.includes('apply-wall-changes'));
    },
    { timeoutMs: 20_000, what: 'the worker to wait for the wall inside the scan command' },
  ).catch((err: Error) => {
    throw new Error(`${err.message}\n${JSON.stringify(activity, null, 1)}`);
  });
  return { answer };
}

/** Runs the scenario; the worker processes it starts are pushed onto `workers` for the caller to stop. */
export async function runWorkerCrashScenario(api: TestApi, workers: WorkerProcess[]): Promise<void> {
  const first = spawnWorkerProcess('sorting worker A', { direct: true });
  workers.push(first);
  const pg = new PgClient({ connectionString: api.runtime.config.DATABASE_URL });
  await pg.connect();
  try {
    const { floor, sorter } = await sorterConnected(api, first, 1);
    const { answer } = await scanHeldInsideCommand(api, pg, floor.wallId, () => scan(api, sorter.auth, sorter.token, 'SKU-A'));
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
    const ok = await request(api.app).patch(`/api/v1/sort-box-items/${res.body.id}/confirm`).set('Authorization', sorter.auth);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ status: 'Confirmed', confirmedUnits: 1 });
  } catch (err) {
    const e = err as Error;
    e.message = `${e.message}\n${workerOutput(workers)}`;
    throw e;
  } finally {
    await pg.end();
  }
}
