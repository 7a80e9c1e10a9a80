import { hostname } from 'node:os';
import IORedis from 'ioredis';
import { Client as PgClient } from 'pg';
import request from 'supertest';
import { commandQueueName, partitionOf } from '../../shared/commands/partitioning';
import { handOverDeadHolder } from '../../shared/commands/partition-leases';
import { startTestApi, waitFor, type TestApi } from '../support/test-api';
import { buildFloor, connect } from '../support/sorting-floor';
import { spawnWorkerProcess, stopWorkerProcess, waitUntilReady, workerOutput, type WorkerProcess } from '../support/worker-process';

/*
 * Queue order across a holder's crash (docs/architecture.md "What keeps a wall's order"). A sorting
 * process holds many jobs of a wall at once (its first held at the wall's row, the next ones taken
 * behind it) and is killed; more scans of the wall are queued behind them. The next holder takes none
 * of the later scans before the dead holder's jobs, which come back at the head of the queue in no
 * order, and decides them all in queue order: every scan takes the next unit in job id order. Once
 * without a supervisor (the leases and the locks run out, the stalled check hands the jobs out again),
 * once with the supervisor's hand-over of a dead process (at once).
 */

jest.setTimeout(180_000);
process.env.COMMAND_TIMEOUT_MS = '60000';
const TTL_MS = 3_000;

describe('queue order across a holder crash', () => {
  let api: TestApi;
  const workers: WorkerProcess[] = [];

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
  const db = () => api.runtime.orm.em.fork();

  for (const supervised of [false, true]) {
    it(`a killed holder's jobs are decided before the later ones, in queue order (${supervised ? 'supervisor hands over' : 'no supervisor'})`, async () => {
      const { config } = api.runtime;
      const floor = await buildFloor(api, { slots: 4, orders: [{ id: 1, items: [{ sku: 'SKU-A', qty: 40 }] }] });
      const partition = partitionOf(floor.wallId, config.QUEUE_PARTITIONS);
      const queueKey = (suffix: string) => `${config.QUEUE_PREFIX}:${commandQueueName(partition)}:${suffix}`;
      const redis = new IORedis(config.REDIS_URL, { maxRetriesPerRequest: 1 });
      const pg = new PgClient({ connectionString: config.DATABASE_URL });
      await pg.connect();
      const a = await spawn(`sorting A (${supervised ? 'supervised' : 'alone'})`);
      let b: WorkerProcess | null = null;
      try {
        const s = await floor.sorter(1);
        const session = await connect(api, floor, s.auth);
        expect(session.status).toBe(200);
        const token = session.body.token as string;
        const scan = () =>
          request(api.app)
            .post('/api/v1/sort-box-items')
            .set('Authorization', s.auth)
            .send({ sessionToken: token, barcode: 'SKU-A' })
            .then((r) => r);

        // The first scan's write waits at the wall's row; ten more are taken by A behind it.
        await pg.query('begin');
        await pg.query('select id from wall where id = $1 for update', [floor.wallId]);
        const answers = [scan()];
        await waitFor(
          async () =>
            (await db().execute<{ query: string }[]>(`select query from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`)).some((r) =>
              r.query.includes('apply-wall-changes'),
            ),
          { timeoutMs: 20_000, what: "the first scan's write to wait at the fence" },
        );
        for (let i = 0; i < 10; i++) answers.push(scan());
        await waitFor(async () => (await redis.llen(queueKey('active'))) === 11, { timeoutMs: 20_000, what: "eleven jobs of the wall in A's hand" });

        a.child.kill('SIGKILL');
        await new Promise((r) => a.child.once('exit', r));
        // Five more, queued behind A's jobs while those are still in the active list.
        for (let i = 0; i < 5; i++) answers.push(scan());
        await waitFor(async () => (await redis.llen(queueKey('wait'))) === 5, { timeoutMs: 20_000, what: 'five scans waiting behind the dead holder' });
        // A's first write, whose client died at the row, commits once the row is free (or never ran).
        await pg.query('rollback');

        if (supervised) {
          // What the supervisor does when it sees the process exit.
          await handOverDeadHolder(redis, { prefix: config.QUEUE_PREFIX, partitions: config.QUEUE_PARTITIONS }, { host: hostname(), pid: a.child.pid! });
        }
        b = await spawn(`sorting B (${supervised ? 'supervised' : 'alone'})`);
        const statuses = (await Promise.all(answers)).map((r) => r.status);
        expect(statuses).toEqual(Array.from({ length: 16 }, () => 200));
      } catch (err) {
        (err as Error).message += `\n${workerOutput(workers)}`;
        throw err;
      } finally {
        await pg.end();
        redis.disconnect();
        await stopWorkerProcess(a);
        if (b) await stopWorkerProcess(b);
      }
      const rows = await db().execute<{ job_id: string; remaining: number }[]>(
        `select job_id, (result->>'remainingUnits')::int as remaining from applied_command where wall_id = ? and name = 'item.scan' order by job_id::bigint`,
        [floor.wallId],
      );
      // In queue order (job ids), each scan took the next unit.
      expect(rows.map((r) => r.remaining)).toEqual(Array.from({ length: 16 }, (_, i) => 39 - i));
    });
  }
});
