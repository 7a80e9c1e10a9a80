import { randomUUID } from 'node:crypto';
import IORedis from 'ioredis';
import { Client as PgClient } from 'pg';
import request from 'supertest';
import type { CommandHandlers, CommandJobInfo, CommandOutcome } from '../../shared/commands/command-job';
import { startPartitionHost, type PartitionHost } from '../../shared/commands/partition-host';
import { commandQueueName, partitionOf } from '../../shared/commands/partitioning';
import { sortingHandlers } from '../../workers/sorting/sorting.handlers';
import { actorDeps } from '../../workers/sorting/sorting.worker';
import { WallActors } from '../../workers/sorting/actor/wall-actor';
import { startOwnRedis, type OwnRedis } from '../support/own-redis';
import { buildFloor, connect, type Floor } from '../support/sorting-floor';
import { startTestApi, waitFor, type TestApi } from '../support/test-api';

/*
 * Commands of one wall, many at once, across a Redis that is killed and restarted without its data
 * (a Redis of the test's own). The partition host and the wall actors are the sorting worker's own,
 * in this process, with each decision counted per partition as it runs:
 * - the commands waiting in the lost queue are answered 504 with Retry-After as soon as Redis is back
 *   (their jobs are gone; the one in hand may commit), never with another command's answer, and no
 *   caller takes back a job that is not its own (Redis starts the job ids again from 1);
 * - the partition never decides two commands at once, before, during or after the restart, and takes
 *   them in arrival order (job ids increasing, once reset by the restart);
 * - every 200 is in the database once, a 503 has changed nothing, and every 504 is answered by a retry
 *   with the same Idempotency-Key.
 */

jest.setTimeout(120_000);

const SORTERS = 6;
/** Scans each sorter sends at once. */
const LANES_PER_SORTER = 3;

interface Attempt {
  status: number;
  code: string | null;
  detail: string;
  retryAfter: string | null;
}

describe('commands of one wall across a Redis restarted empty', () => {
  let redis: OwnRedis;
  let probe: IORedis | null = null;
  let api: TestApi;
  let host: PartitionHost | undefined;
  let floor: Floor;
  let wallPartition = -1;
  /** Decisions running now, per partition, and every time there were two. */
  const running = new Map<number, number>();
  const overlaps: string[] = [];
  /** The job ids of the wall's partition, in the order their decisions began. */
  const started: number[] = [];

  beforeAll(async () => {
    redis = await startOwnRedis({ persistence: false });
    // A command no worker answers would wait 8 s; the lost ones must be answered long before.
    api = await startTestApi({ env: { REDIS_URL: redis.url, COMMAND_TIMEOUT_MS: '8000' } });
    const actors = new WallActors(actorDeps(api.runtime), api.runtime.config.QUEUE_PARTITIONS);
    const handlers = sortingHandlers(actors) as unknown as Record<string, (payload: unknown, job: CommandJobInfo) => Promise<CommandOutcome>>;
    const counted = Object.fromEntries(
      Object.entries(handlers).map(([name, handle]) => [
        name,
        async (payload: unknown, job: CommandJobInfo) => {
          const now = (running.get(job.partition) ?? 0) + 1;
          running.set(job.partition, now);
          if (now > 1) overlaps.push(`${now} decisions of partition ${job.partition} at once (job ${job.jobId}, ${name})`);
          if (job.partition === wallPartition) started.push(job.jobId);
          try {
            return await handle(payload, job);
          } finally {
            running.set(job.partition, (running.get(job.partition) ?? 1) - 1);
          }
        },
      ]),
    ) as unknown as CommandHandlers;
    // A short lease: after the restart the host finds its leases gone within a second and takes them again.
    host = await startPartitionHost(api.runtime.queueSettings, counted, { log: api.runtime.log, leaseTtlMs: 5_000, dropped: (p) => actors.dropPartition(p) });
    floor = await buildFloor(api, { slots: 40, orders: Array.from({ length: 60 }, (_, i) => ({ id: i + 1, items: [{ sku: 'SKU-A', qty: 50 }] })) });
    wallPartition = partitionOf(floor.wallId, api.runtime.config.QUEUE_PARTITIONS);
  });

  afterAll(async () => {
    probe?.disconnect();
    await host?.close();
    await api?.close();
    await redis?.close();
  });

  const count = async (sql: string, params: unknown[]) => Number((await api.runtime.orm.em.fork().execute<{ n: string }[]>(sql, params))[0]!.n);
  const queueKey = (suffix: string) => `${api.runtime.config.QUEUE_PREFIX}:${commandQueueName(wallPartition)}:${suffix}`;
  const redisProbe = () => (probe ??= new IORedis(redis.url, { maxRetriesPerRequest: 1, lazyConnect: false }));

  it('answers the lost commands 504 at once, decides one command at a time in arrival order, and applies every 200 once', async () => {
    const clientId = floor.tenant.clientId;
    const sorters = await Promise.all(
      Array.from({ length: SORTERS }, async (_, i) => {
        const s = await floor.sorter(i + 1);
        const session = await connect(api, floor, s.auth);
        expect(session.status).toBe(200);
        return { auth: s.auth, token: session.body.token as string };
      }),
    );

    /** Every key's answers, in order; the item id of its 200. */
    const attempts = new Map<string, Attempt[]>();
    const itemOf = new Map<string, number>();
    const noEffect: string[] = [];
    let stop = false;
    /** One scan, sent again with its key after a 503 or 504 until it is answered. */
    const scanOnce = async (s: { auth: string; token: string }) => {
      const key = randomUUID();
      const seen: Attempt[] = [];
      attempts.set(key, seen);
      for (let i = 0; i < 400; i++) {
        const res = await request(api.app).post('/api/v1/sort-box-items').set('Authorization', s.auth).set('Idempotency-Key', key).send({ sessionToken: s.token, barcode: 'SKU-A' });
        seen.push({ status: res.status, code: res.body?.code ?? null, detail: res.body?.detail ?? '', retryAfter: res.headers['retry-after'] ?? null });
        if (res.status === 200) {
          itemOf.set(key, res.body.id as number);
          return;
        }
        if (res.status !== 503 && res.status !== 504) throw new Error(`scan answered ${res.status}: ${JSON.stringify(res.body)}`);
        // "Nothing was changed": the key has no record, unless an earlier 504 may have applied it.
        if (res.status === 503 && seen.every((a) => a.status !== 504)) {
          if ((await count(`select count(*) as n from idempotency_record where client_id = ? and split_part(idempotency_key, ':', 2) = ?`, [clientId, key])) !== 0) noEffect.push(key);
        }
        // A client's pause before it tries again (Redis is restarting): not a wait for a condition.
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`scan ${key} not answered after 400 tries: ${JSON.stringify(seen.slice(-3))}`);
    };
    const lanes = sorters.flatMap((s) =>
      Array.from({ length: LANES_PER_SORTER }, async () => {
        while (!stop) await scanOnce(s);
      }),
    );
    const load = Promise.all(lanes);

    const pg = new PgClient({ connectionString: api.runtime.config.DATABASE_URL });
    await pg.connect();
    let restartedAt = 0;
    try {
      await waitFor(() => itemOf.size >= 20, { timeoutMs: 30_000, what: '20 scans answered before the restart' });
      // Hold the wall row: the command in hand waits at its fence, the others wait in the queue.
      await pg.query('begin');
      await pg.query('select id from wall where id = $1 for update', [floor.wallId]);
      await waitFor(
        async () =>
          (await api.runtime.orm.em
            .fork()
            .execute<{ query: string }[]>(`select query from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`)).some((r) => r.query.includes('apply-wall-changes')) &&
          (await redisProbe().llen(queueKey('wait'))) >= 8,
        { timeoutMs: 20_000, what: 'a command in hand at the fence and 8 waiting in the queue' },
      );
      const waitingAtKill = new Set([...attempts.entries()].filter(([key]) => !itemOf.has(key)).map(([key]) => key));
      probe?.disconnect();
      probe = null;
      await redis.kill();
      await redis.start();
      restartedAt = Date.now();
      // The partition is held again and its new worker has taken a command, while the one taken
      // before the restart still waits at the fence: both are in this process now.
      await waitFor(async () => (await redisProbe().llen(queueKey('active'))) >= 1, { timeoutMs: 20_000, what: 'a command taken after the restart' });
      await pg.query('rollback');

      const before = itemOf.size;
      await waitFor(() => itemOf.size >= before + 60, { timeoutMs: 60_000, what: '60 scans answered after the restart' });
      stop = true;
      await load;

      // The commands lost with the queue: 504 with Retry-After (or the one in hand: its 200).
      const firstAnswers = [...waitingAtKill].map((key) => attempts.get(key)!.find((a) => a.status !== 503 || !/unreachable/.test(a.detail))!);
      expect(firstAnswers.filter((a) => a.status === 504).length).toBeGreaterThanOrEqual(7);
      for (const a of firstAnswers) {
        if (a.status === 200) continue;
        expect(a).toMatchObject({ status: 504, code: 'command-timeout', retryAfter: expect.stringMatching(/^\d+$/) });
        expect(a.detail).toMatch(/lost the item\.scan command|became unreachable/);
      }
    } finally {
      stop = true;
      await pg.end();
      await load.catch(() => undefined);
    }

    // One decision at a time in the partition, in arrival order (job ids start again after the restart).
    expect(overlaps).toEqual([]);
    const breaks = started.filter((id, i) => i > 0 && id <= started[i - 1]!).length;
    expect(breaks).toBeLessThanOrEqual(1);
    expect(started.length).toBeGreaterThan(80);

    // Every answer that was not a 200 said when to try again; a 503 changed nothing.
    const all = [...attempts.values()].flat();
    expect(all.filter((a) => a.status !== 200 && !/^\d+$/.test(a.retryAfter ?? ''))).toEqual([]);
    expect(noEffect).toEqual([]);
    expect(restartedAt).toBeGreaterThan(0);

    // Every 200 is its own scan, once: no caller got another's answer, nothing was applied twice
    // (a scan's key is recorded as `<user id>:<key>`).
    const ids = [...itemOf.values()];
    expect(new Set(ids).size).toBe(ids.length);
    expect(attempts.size).toBe(itemOf.size);
    const records = await api.runtime.orm.em
      .fork()
      .execute<{ key: string; id: number }[]>(`select split_part(idempotency_key, ':', 2) as key, (body->>'id')::int as id from idempotency_record where client_id = ?`, [clientId]);
    expect(new Map(records.map((r) => [r.key, r.id]))).toEqual(itemOf);
    const items = await count('select count(*) as n from sort_box_item where client_id = ?', [clientId]);
    expect(items).toBe(itemOf.size);
    // A retry answered from its key's record is a command of its own, with the first one's answer.
    expect(await count(`select count(distinct result->>'id') as n from applied_command where client_id = ? and name = 'item.scan'`, [clientId])).toBe(items);
    expect(await count(`select count(*) as n from outbox_event where client_id = ? and type = 'sort-box-item.created'`, [clientId])).toBe(items);
    expect(await count('select coalesce(sum(pending_qty + confirmed_qty), 0) as n from order_item where client_id = ?', [clientId])).toBe(items);
  });
});
