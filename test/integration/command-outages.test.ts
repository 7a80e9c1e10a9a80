import { randomUUID } from 'node:crypto';
import IORedis from 'ioredis';
import { Client as PgClient } from 'pg';
import request from 'supertest';
import { ensureDatabase, initOrm, migrate } from '../../shared/db/orm';
import { commandQueueName, partitionOf } from '../../shared/commands/partitioning';
import { READINESS } from '../../services/api/http/readiness';
import { startOwnPostgres, type OwnPostgres } from '../support/own-postgres';
import { startOwnRedis, type OwnRedis } from '../support/own-redis';
import { buildFloor, connect, type Floor } from '../support/sorting-floor';
import { startTestApi, waitFor, type TestApi } from '../support/test-api';

/*
 * While PostgreSQL or Redis is down, every request of the floor is answered while the server is still
 * down: a scan, a confirm, a wall read and /readyz, and the commands that were already waiting for a
 * worker when it went down. Each answer is 503 `service-unavailable` or 504 `command-timeout` with
 * Retry-After (a wall read needs no Redis: 200 then). The requirement is about 2 s; each outage is held
 * 8 s, so a request held until a pool, a reconnect or the 10 s command timeout gave up would still be
 * waiting when the server returns. Then the floor works again. The API and the sorting worker run in
 * this process, on a PostgreSQL and a Redis of the test's own.
 */

jest.setTimeout(180_000);

const OUTAGE_HELD_MS = 8_000;
/** /readyz reuses its last answer for a moment: a 200 that old is the answer of a check made before the outage. */
const READYZ_MAY_LAG_MS = READINESS.cacheMs + READINESS.timeoutMs + 500;

interface Answer {
  name: 'scan' | 'confirm' | 'wall' | 'readyz' | 'waiting scan';
  status: number;
  code: string | null;
  retryAfter: string | null;
  at: number;
  ms: number;
}

describe('the floor while PostgreSQL or Redis is down', () => {
  let pg: OwnPostgres;
  let redis: OwnRedis;
  let api: TestApi;
  let floor: Floor;
  let sorter: { auth: string; token: string };

  beforeAll(async () => {
    pg = await startOwnPostgres();
    redis = await startOwnRedis();
    const databaseUrl = pg.urlOf('sorting');
    await ensureDatabase(databaseUrl);
    const orm = await initOrm(databaseUrl, 1);
    await migrate(orm);
    await orm.close();
    // The command timeout stays the default 10 s: a waiting command answered by it would come too late.
    api = await startTestApi({ workers: ['sorting'], env: { DATABASE_URL: databaseUrl, REDIS_URL: redis.url, COMMAND_TIMEOUT_MS: '10000' } });
    floor = await buildFloor(api, { slots: 20, orders: Array.from({ length: 20 }, (_, i) => ({ id: i + 1, items: [{ sku: 'SKU-A', qty: 100 }] })) });
    const s = await floor.sorter(1);
    const session = await connect(api, floor, s.auth);
    expect(session.status).toBe(200);
    sorter = { auth: s.auth, token: session.body.token as string };
  });

  afterAll(async () => {
    // Bounded: the servers of this test are stopped whatever happens.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([api?.close(), new Promise((r) => (timer = setTimeout(r, 30_000)))]);
    clearTimeout(timer);
    await redis?.close();
    await pg?.close();
  });

  async function ask(name: Answer['name'], send: () => request.Test): Promise<Answer> {
    const at = Date.now();
    try {
      const res = await send().timeout(30_000);
      return { name, status: res.status, code: res.body?.code ?? null, retryAfter: res.headers['retry-after'] ?? null, at, ms: Date.now() - at };
    } catch (err) {
      // No answer at all (status 0): never acceptable.
      return { name, status: 0, code: (err as Error).message, retryAfter: null, at, ms: Date.now() - at };
    }
  }
  const scan = (name: Answer['name'] = 'scan') =>
    ask(name, () => request(api.app).post('/api/v1/sort-box-items').set('Authorization', sorter.auth).set('Idempotency-Key', randomUUID()).send({ sessionToken: sorter.token, barcode: 'SKU-A' }));

  /**
   * Scans while `lock` holds the wall row: one command waits at its fence inside the worker, the others
   * in the queue. Resolves once they are waiting, with their answers to come.
   */
  async function commandsWaiting(lock: PgClient): Promise<Promise<Answer>[]> {
    await lock.query('begin');
    await lock.query('select id from wall where id = $1 for update', [floor.wallId]);
    const waiting = Array.from({ length: 4 }, () => scan('waiting scan'));
    const probe = new IORedis(redis.url, { maxRetriesPerRequest: 1 });
    try {
      const wait = `${api.runtime.config.QUEUE_PREFIX}:${commandQueueName(partitionOf(floor.wallId, api.runtime.config.QUEUE_PARTITIONS))}:wait`;
      await waitFor(
        async () =>
          (await api.runtime.orm.em
            .fork()
            .execute<{ query: string }[]>(`select query from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`)).some((r) => r.query.includes('apply-wall-changes')) &&
          (await probe.llen(wait)) >= 3,
        { timeoutMs: 20_000, what: 'one scan at the fence and three in the queue' },
      );
    } finally {
      probe.disconnect();
    }
    return waiting;
  }

  /** Scans, confirms, wall reads and probes, a few at a time, until `stop()`. */
  function stream(itemId: number) {
    const answers: Answer[] = [];
    let running = true;
    const kinds: (() => Promise<Answer>)[] = [
      () => scan(),
      () => ask('confirm', () => request(api.app).patch(`/api/v1/sort-box-items/${itemId}/confirm`).set('Authorization', sorter.auth).send({})),
      () => ask('wall', () => request(api.app).get(`/api/v1/walls/${floor.wallId}`).set('Authorization', sorter.auth)),
      () => ask('readyz', () => request(api.app).get('/readyz')),
    ];
    const lanes = [0, 1, 2].map(async (lane) => {
      for (let i = lane; running; i++) {
        answers.push(await kinds[i % kinds.length]!());
        // A device's pace, not a wait for a condition.
        await new Promise((r) => setTimeout(r, 20));
      }
    });
    return {
      answers,
      async stop() {
        running = false;
        await Promise.all(lanes);
        return answers;
      },
    };
  }

  /** An item scanned and left pending, for the confirms of the stream. */
  async function pendingItem(): Promise<number> {
    const res = await request(api.app).post('/api/v1/sort-box-items').set('Authorization', sorter.auth).send({ sessionToken: sorter.token, barcode: 'SKU-A' });
    expect(res.status).toBe(200);
    return res.body.id as number;
  }

  /** After the outage: a scan succeeds again (retried as a device would), and /readyz says ready. */
  async function servesAgain(): Promise<void> {
    await waitFor(async () => (await scan()).status === 200, { timeoutMs: 60_000, intervalMs: 200, what: 'a scan to succeed again' });
    await waitFor(async () => (await request(api.app).get('/readyz')).status === 200, { timeoutMs: 30_000, intervalMs: 200, what: '/readyz to say ready again' });
  }

  const honest = (a: Answer) => (a.status === 503 && a.code === 'service-unavailable') || (a.status === 504 && a.code === 'command-timeout');

  /**
   * Every request made while the server was down (and every one waiting when it went down) was answered
   * 503/504 with Retry-After, or as `fine` says; each that still had half the outage ahead of it (4 s,
   * twice the requirement) was answered before the server returned. One made in the last moments may
   * be answered just after, by either side.
   */
  function expectAnsweredDuringOutage(answers: Answer[], downAt: number, backAt: number, fine: (a: Answer) => boolean): void {
    const during = answers.filter((a) => a.at >= downAt && a.at < backAt);
    for (const name of ['scan', 'confirm', 'wall', 'readyz', 'waiting scan'] as const) expect(during.filter((a) => a.name === name).length).toBeGreaterThan(0);
    const lateAfter = backAt - OUTAGE_HELD_MS / 2;
    const wrong = during.filter(
      (a) => (a.at < lateAfter && a.at + a.ms > backAt) || !(fine(a) || (honest(a) && /^\d+$/.test(a.retryAfter ?? '')) || (a.at >= lateAfter && a.at + a.ms > backAt && a.status === 200)),
    );
    expect(wrong).toEqual([]);
    const slowest = Math.max(...during.map((a) => a.ms));
    process.stdout.write(`\noutage answers: ${during.length} requests, the slowest answered in ${slowest} ms\n`);
  }

  it('PostgreSQL down: every request, and the commands waiting when it went down, answered 503/504 with Retry-After before it is back', async () => {
    const itemId = await pendingItem();
    const lock = new PgClient({ connectionString: pg.urlOf('sorting') });
    lock.on('error', () => undefined); // the server's shutdown cuts it off
    await lock.connect();
    const waiting = await commandsWaiting(lock);
    const downAt = Date.now();
    await pg.kill();
    const s = stream(itemId);
    await waitFor(() => s.answers.filter((a) => a.at > downAt + OUTAGE_HELD_MS).length >= 4, { timeoutMs: 60_000, what: 'requests through the outage' });
    const backAt = Date.now();
    await pg.start();
    const answers = await s.stop();
    await lock.end().catch(() => undefined);
    // The waiting scans count from the moment the server went down.
    const waited = (await Promise.all(waiting)).map((a) => ({ ...a, at: downAt, ms: a.at + a.ms - downAt }));
    // A wall read and /readyz made in the first moment may still be answered from before (readyz: its cache).
    expectAnsweredDuringOutage([...answers, ...waited], downAt, backAt, (a) => a.name === 'readyz' && a.status === 200 && a.at < downAt + READYZ_MAY_LAG_MS);
    await servesAgain();
  });

  it('Redis down: every command answered 503/504 with Retry-After before it is back, the commands waiting when it went down too; reads stay 200', async () => {
    const itemId = await pendingItem();
    const lock = new PgClient({ connectionString: pg.urlOf('sorting') });
    await lock.connect();
    try {
      const waiting = await commandsWaiting(lock);
      const downAt = Date.now();
      await redis.kill();
      const s = stream(itemId);
      // The scan at the fence may commit now: its answer is lost with the reply channel (504, retry by key).
      await lock.query('rollback');
      await waitFor(() => s.answers.filter((a) => a.at > downAt + OUTAGE_HELD_MS).length >= 4, { timeoutMs: 60_000, what: 'requests through the outage' });
      const backAt = Date.now();
      await redis.start();
      const answers = await s.stop();
      const waited = (await Promise.all(waiting)).map((a) => ({ ...a, at: downAt, ms: a.at + a.ms - downAt }));
      expectAnsweredDuringOutage(
        [...answers, ...waited],
        downAt,
        backAt,
        (a) => (a.name === 'wall' && a.status === 200) || (a.name === 'readyz' && a.status === 200 && a.at < downAt + READYZ_MAY_LAG_MS),
      );
      // Reads need no Redis.
      expect(answers.filter((a) => a.name === 'wall' && a.status !== 200)).toEqual([]);
    } finally {
      await lock.end().catch(() => undefined);
    }
    await servesAgain();
  });
});
