import { randomUUID } from 'node:crypto';
import IORedis from 'ioredis';
import { Client as PgClient } from 'pg';
import request from 'supertest';
import { startPartitionHost, type PartitionHost } from '../../shared/commands/partition-host';
import { leaseKey } from '../../shared/commands/partition-leases';
import { commandQueueName, partitionOf } from '../../shared/commands/partitioning';
import { sortingHandlers } from '../../workers/sorting/sorting.handlers';
import { actorDeps } from '../../workers/sorting/sorting.worker';
import { WallActors } from '../../workers/sorting/actor/wall-actor';
import { startOwnRedis, type OwnRedis } from '../support/own-redis';
import { buildFloor, connect } from '../support/sorting-floor';
import { startTestApi, waitFor, type TestApi } from '../support/test-api';

/*
 * Commands of one wall, many at once, across a Redis that is killed and restarted without its data
 * (a Redis of the test's own). The partition hosts and the wall actors are the sorting worker's own,
 * in this process (one host stands for one sorting process), with each decision counted per partition
 * as it runs, whichever host runs it:
 * - the commands waiting in the lost queue are answered 504 with Retry-After (their jobs are gone; the
 *   ones in hand may commit), never with another command's answer, and no caller takes back a job that is
 *   not its own (Redis starts the job ids again from 1);
 * - the wall (the one wall of its partition) never has two commands decided at once, before, during or
 *   after the restart, and takes them in arrival order (job ids increasing, once reset by the restart), while a command taken before
 *   the restart is still in hand (held at the wall's row) and its holder finds its lease gone;
 * - every 200 is in the database once, a 503 has changed nothing, and every 504 is answered by a retry
 *   with the same Idempotency-Key.
 */

jest.setTimeout(150_000);

const SORTERS = 6;
/** Scans each sorter sends at once. */
const LANES_PER_SORTER = 3;
const LEASE_TTL_MS = 5_000;

interface Attempt {
  status: number;
  code: string | null;
  detail: string;
  retryAfter: string | null;
}

describe('commands of one wall across a Redis restarted empty', () => {
  let redis: OwnRedis;
  let api: TestApi;

  beforeAll(async () => {
    redis = await startOwnRedis({ persistence: false });
    // A command no worker answers would wait 8 s; the lost ones must be answered long before.
    api = await startTestApi({ env: { REDIS_URL: redis.url, COMMAND_TIMEOUT_MS: '8000' } });
  });
  afterAll(async () => {
    await api?.close();
    await redis?.close();
  });

  const count = async (sql: string, params: unknown[]) => Number((await api.runtime.orm.em.fork().execute<{ n: string }[]>(sql, params))[0]!.n);

  /**
   * `holders` partition hosts sharing the partitions; Redis is killed while a scan of the wall is held
   * at the wall's row and others wait in its queue, and started again empty at once.
   */
  async function scenario(holders: number): Promise<void> {
    const prefix = api.runtime.config.QUEUE_PREFIX;
    const partitions = api.runtime.config.QUEUE_PARTITIONS;
    let wallPartition = -1;
    const running = new Map<number, number>();
    /** Per partition and host, the commands decided (or being decided) and not yet answered. */
    const unanswered = new Map<number, Map<number, number>>();
    const overlaps: string[] = [];
    /** The job ids of the wall's partition, in the order their decisions began. */
    const started: number[] = [];
    const hosts: PartitionHost[] = [];
    let probe: IORedis | null = null;
    const redisProbe = () => (probe ??= new IORedis(redis.url, { maxRetriesPerRequest: 1 }));
    const dropProbe = () => {
      probe?.disconnect();
      probe = null;
    };
    try {
      for (let h = 0; h < holders; h++) {
        const actors = new WallActors(actorDeps(api.runtime), partitions);
        // Per partition, each decision (a use-case run) counted while it runs, and each command from its
        // first use-case call to its answer per host: within a host a wall's commands are decided one
        // after the other (those written together in one transaction are answered together once it
        // committed, so their answers come after the next ones' decisions); no host decides one while
        // another host has one decided and not yet answered.
        const run = actors.run.bind(actors);
        actors.run = ((command: Parameters<WallActors['run']>[0]) => {
          const { partition, jobId } = command.job;
          let began = false;
          const useCase: typeof command.useCase = async (ctx) => {
            const now = (running.get(partition) ?? 0) + 1;
            running.set(partition, now);
            if (now > 1) overlaps.push(`${now} decisions of partition ${partition} at once (job ${jobId}, ${command.name}, host ${h})`);
            const others = [...(unanswered.get(partition)?.entries() ?? [])].filter(([host, n]) => host !== h && n > 0);
            if (others.length > 0) overlaps.push(`a decision of partition ${partition} on host ${h} while host ${others[0]![0]} has one unanswered (job ${jobId}, ${command.name})`);
            if (!began) {
              began = true;
              const open = unanswered.get(partition) ?? new Map<number, number>();
              open.set(h, (open.get(h) ?? 0) + 1);
              unanswered.set(partition, open);
              if (partition === wallPartition) started.push(jobId);
            }
            try {
              return await command.useCase(ctx);
            } finally {
              running.set(partition, (running.get(partition) ?? 1) - 1);
            }
          };
          return run({ ...command, useCase }).finally(() => {
            if (began) unanswered.get(partition)!.set(h, unanswered.get(partition)!.get(h)! - 1);
          });
        }) as WallActors['run'];
        const handlers = sortingHandlers(actors);
        hosts.push(await startPartitionHost(api.runtime.queueSettings, handlers, { log: api.runtime.log, leaseTtlMs: LEASE_TTL_MS, dropped: (p) => actors.dropPartition(p) }));
      }
      await waitFor(() => hosts.every((host) => host.partitions().length === partitions / holders), { timeoutMs: 30_000, what: 'an even share of the partitions' });

      const floor = await buildFloor(api, { slots: 40, orders: Array.from({ length: 60 }, (_, i) => ({ id: i + 1, items: [{ sku: 'SKU-A', qty: 50 }] })) });
      wallPartition = partitionOf(floor.wallId, partitions);
      const queueKey = (suffix: string) => `${prefix}:${commandQueueName(wallPartition)}:${suffix}`;
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
          // "Nothing was changed": the key has no record (stored as `<user id>:<key>`), unless an earlier 504 may have applied it.
          if (res.status === 503 && seen.every((a) => a.status !== 504)) {
            const recorded = await count(`select count(*) as n from applied_command where client_id = ? and split_part(idempotency_key, ':', 2) = ?`, [clientId, key]);
            if (recorded !== 0) noEffect.push(key);
          }
          // A device's pause before it tries again (Redis is away): not a wait for a condition.
          await new Promise((r) => setTimeout(r, 100));
        }
        throw new Error(`scan ${key} not answered after 400 tries: ${JSON.stringify(seen.slice(-3))}`);
      };
      const load = Promise.all(
        sorters.flatMap((s) =>
          Array.from({ length: LANES_PER_SORTER }, async () => {
            while (!stop) await scanOnce(s);
          }),
        ),
      );

      const pg = new PgClient({ connectionString: api.runtime.config.DATABASE_URL });
      await pg.connect();
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
            (await redisProbe().llen(queueKey('wait'))) + (await redisProbe().llen(queueKey('active'))) >= 9,
          // The worker holds up to 16 of them (taken in queue order, waiting behind the one at the fence): in hand or in the queue, 8 wait.
          { timeoutMs: 20_000, what: 'a command in hand at the fence and 8 waiting behind it' },
        );
        const waitingAtKill = new Set([...attempts.entries()].filter(([key]) => !itemOf.has(key)).map(([key]) => key));
        dropProbe();
        await redis.kill();
        await redis.start();
        const [sec, usec] = await redisProbe().time();
        const restartedAt = Number(sec) * 1000 + Math.floor(Number(usec) / 1000);
        // Hold the fence until the partition's next decision could have begun: a worker took a command
        // of the wall after the restart, or every host has gone twice through its leases since (each
        // round registers the host until then + the TTL).
        await waitFor(
          async () => {
            if ((await redisProbe().llen(queueKey('active'))) >= 1) return true;
            const registered = await redisProbe().zrange(`${prefix}:sorting:holders`, 0, -1, 'WITHSCORES');
            const until = registered.filter((_, i) => i % 2 === 1).map(Number);
            return until.length === holders && until.every((t) => t >= restartedAt + LEASE_TTL_MS + (2 * LEASE_TTL_MS) / 5) && (await redisProbe().get(leaseKey(prefix, wallPartition))) !== null;
          },
          { timeoutMs: 20_000, what: "the wall's partition held again after the restart" },
        );
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

      // One decision at a time of the wall, in arrival order (job ids start again after the restart).
      expect(overlaps).toEqual([]);
      const breaks = started.filter((id, i) => i > 0 && id <= started[i - 1]!).length;
      expect(breaks).toBeLessThanOrEqual(1);
      expect(started.length).toBeGreaterThan(80);

      // Every answer that was not a 200 said when to try again; a 503 changed nothing.
      const all = [...attempts.values()].flat();
      expect(all.filter((a) => a.status !== 200 && !/^\d+$/.test(a.retryAfter ?? ''))).toEqual([]);
      expect(noEffect).toEqual([]);

      // Every 200 is its own scan, once: no caller got another's answer, nothing was applied twice.
      const ids = [...itemOf.values()];
      expect(new Set(ids).size).toBe(ids.length);
      expect(attempts.size).toBe(itemOf.size);
      const records = await api.runtime.orm.em
        .fork()
        .execute<{ key: string; id: number }[]>(`select split_part(idempotency_key, ':', 2) as key, (result->>'id')::int as id from applied_command where client_id = ? and idempotency_key is not null`, [clientId]);
      expect(new Map(records.map((r) => [r.key, r.id]))).toEqual(itemOf);
      const items = await count('select count(*) as n from sort_box_item where client_id = ?', [clientId]);
      expect(items).toBe(itemOf.size);
      // A retry answered from its key's record is a command of its own, with the first one's answer.
      expect(await count(`select count(distinct result->>'id') as n from applied_command where client_id = ? and name = 'item.scan'`, [clientId])).toBe(items);
      expect(await count(`select count(*) as n from outbox_event where client_id = ? and type = 'sort-box-item.created'`, [clientId])).toBe(items);
      expect(await count('select coalesce(sum(pending_qty + confirmed_qty), 0) as n from order_item where client_id = ?', [clientId])).toBe(items);
    } finally {
      dropProbe();
      await Promise.all(hosts.map((host) => host.close()));
    }
  }

  it('two sorting processes, Redis back at once: each keeps its partitions, the lost commands answer 504, one decision at a time, every 200 once', () =>
    scenario(2));
});
