import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import request from 'supertest';
import { Readiness, createHealthServer, postgresProbe, readyzAnswer, redisProbe, redisReadinessProbe, type ReadinessProbe } from '../../services/api/http/readiness';
import { createLogger } from '../../shared/logging/logger';
import { leaseKey, partitionsHeld } from '../../shared/commands/partition-leases';
import { REQUEST_PATH_REDIS, createRedis } from '../../shared/redis/redis';
import { TEST_PG_BASE, workerDbName } from '../support/test-db';
import { startTestApi, type TestApi } from '../support/test-api';

/*
 * /readyz (services/api/http/readiness.ts): one check per interval however many probes ask, each
 * dependency bounded in time, and never queued behind the pool that requests use.
 */

const databaseUrl = () => `${TEST_PG_BASE}/${workerDbName(process.env.JEST_WORKER_ID ?? '1')}`;

/** A server that accepts connections and never says a word: a stalled PostgreSQL or Redis. */
async function silentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets: Socket[] = [];
  const server: Server = createServer((s) => {
    sockets.push(s);
    s.on('error', () => undefined);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((r) => {
        sockets.forEach((s) => s.destroy());
        server.close(() => r());
      }),
  };
}

/** Polls `ok` (microtask turns and short timers) until it holds, at most 2 s. */
async function waitUntil(ok: () => Promise<boolean>): Promise<void> {
  const until = Date.now() + 2000;
  while (!(await ok())) {
    if (Date.now() > until) throw new Error('condition not met within 2 s');
    await new Promise((r) => setImmediate(r));
  }
}

function counted(probe: ReadinessProbe): { probe: ReadinessProbe; calls: () => number } {
  let n = 0;
  return {
    probe: () => {
      n++;
      return probe();
    },
    calls: () => n,
  };
}

describe('Readiness', () => {
  it('answers a flood of probes with one check of each dependency per interval', async () => {
    const pg = postgresProbe(databaseUrl(), 'sorting:test:readiness', 1000);
    const redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', REQUEST_PATH_REDIS);
    const pgCount = counted(pg.probe);
    const redisCount = counted(redisProbe(redis));
    const readiness = new Readiness({ postgres: pgCount.probe, redis: redisCount.probe }, { timeoutMs: 1000, cacheMs: 60_000, maxAgeMs: 60_000 });
    try {
      const answers = await Promise.all(Array.from({ length: 500 }, () => readiness.check()));
      expect(answers.every((a) => a.postgres && a.redis)).toBe(true);
      expect(await readiness.check()).toEqual({ postgres: true, redis: true });
      expect([pgCount.calls(), redisCount.calls()]).toEqual([1, 1]);

      // Once the answer is older than the interval, the next probe checks again, once.
      const fresh = new Readiness({ postgres: pgCount.probe, redis: redisCount.probe }, { timeoutMs: 1000, cacheMs: 0, maxAgeMs: 0 });
      await Promise.all(Array.from({ length: 100 }, () => fresh.check()));
      expect([pgCount.calls(), redisCount.calls()]).toEqual([2, 2]);
    } finally {
      await pg.close();
      redis.disconnect();
    }
  });

  it('answers a probe from the last check while the next one runs, and waits only when that answer is too old', async () => {
    const pending: { resolve(): void; reject(err: Error): void }[] = [];
    const probe: ReadinessProbe = () => new Promise<void>((resolve, reject) => void pending.push({ resolve, reject }));
    let t = 0;
    const clock = jest.spyOn(performance, 'now').mockImplementation(() => t);
    try {
      const readiness = new Readiness({ redis: probe }, { timeoutMs: 60_000, cacheMs: 1000, maxAgeMs: 5000 });
      // The first probe has nothing to answer from: it waits for the check.
      const first = readiness.check();
      expect(pending).toHaveLength(1);
      pending[0]!.resolve();
      expect(await first).toEqual({ redis: true });
      // Older than cacheMs: answered at once from the last check, while one new check starts behind it.
      t = 1500;
      expect(await readiness.check()).toEqual({ redis: true });
      expect(await readiness.check()).toEqual({ redis: true });
      expect(pending).toHaveLength(2);
      // That check finds Redis gone: the probes after it say so.
      pending[1]!.reject(new Error('Connection is closed.'));
      await waitUntil(async () => (await readiness.check()).redis === false);
      expect(pending).toHaveLength(2);
      // Nobody asked for longer than maxAgeMs: the probe waits for a new check rather than answer an old one.
      t = 10_000;
      let answered = false;
      const late = readiness.check().then((c) => ((answered = true), c));
      await Promise.resolve();
      expect(answered).toBe(false);
      expect(pending).toHaveLength(3);
      pending[2]!.resolve();
      expect(await late).toEqual({ redis: true });
    } finally {
      clock.mockRestore();
    }
  });

  it('at start, waits until a sorting process holds every command partition, then no longer asks', async () => {
    const redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', REQUEST_PATH_REDIS);
    const prefix = `readyz-gate-${process.pid}-${Date.now()}`;
    const gate = { name: 'partitions', probe: partitionsHeld(redis, prefix, 3), waitMs: 60_000, recheckMs: 0 };
    const readiness = new Readiness({ redis: redisProbe(redis) }, { timeoutMs: 1000, cacheMs: 0, maxAgeMs: 0 }, gate);
    try {
      expect(await readiness.check()).toEqual({ redis: true, partitions: false });
      const notYet = readyzAnswer({ redis: true, partitions: false });
      expect(notYet.ok ? null : notYet.error.message).toMatch(/command partition is held by a sorting worker/);
      await redis.set(leaseKey(prefix, 0), 'host:1:a');
      await redis.set(leaseKey(prefix, 2), 'host:1:a');
      expect(await readiness.check()).toEqual({ redis: true, partitions: false });
      await redis.set(leaseKey(prefix, 1), 'host:2:b');
      expect(await readiness.check()).toEqual({ redis: true });
      // Held once: a partition free later (a sorting process that died) leaves the API ready.
      await redis.del(leaseKey(prefix, 1));
      expect(await readiness.check()).toEqual({ redis: true });
    } finally {
      await redis.del(leaseKey(prefix, 0), leaseKey(prefix, 1), leaseKey(prefix, 2));
      redis.disconnect();
    }
  });

  it('is ready without the partitions once the start wait ran out, and checks them again sooner meanwhile', async () => {
    let t = 0;
    let asked = 0;
    const clock = jest.spyOn(performance, 'now').mockImplementation(() => t);
    try {
      const gate = { name: 'partitions', probe: async () => (asked++, false), waitMs: 10_000, recheckMs: 50 };
      const readiness = new Readiness({ redis: async () => undefined }, { timeoutMs: 1000, cacheMs: 1000, maxAgeMs: 2000 }, gate);
      expect(await readiness.check()).toEqual({ redis: true, partitions: false });
      // Within recheckMs the answer stands; after it (well within cacheMs) the gate is asked again.
      t = 40;
      expect(await readiness.check()).toEqual({ redis: true, partitions: false });
      expect(asked).toBe(1);
      t = 60;
      expect(await readiness.check()).toEqual({ redis: true, partitions: false });
      expect(asked).toBe(2);
      t = 10_000;
      expect(await readiness.check()).toEqual({ redis: true });
      t = 20_000;
      expect(await readiness.check()).toEqual({ redis: true });
      expect(asked).toBe(3);
    } finally {
      clock.mockRestore();
    }
  });

  it('counts a reply that arrived in time although the event loop was held past the timeout', async () => {
    // The API's probes (start-api.ts), with a shorter timeout.
    const pg = postgresProbe(databaseUrl(), 'sorting:test:readiness', 300);
    const redis = redisReadinessProbe(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', createLogger('silent', 'test'), 300);
    const readiness = new Readiness({ postgres: pg.probe, redis: redis.probe }, { timeoutMs: 300, cacheMs: 0, maxAgeMs: 0 });
    try {
      // Both connections open, so the next check's queries leave at once.
      expect(await readiness.check()).toEqual({ postgres: true, redis: true });
      const answer = readiness.check();
      // One turn of the loop that takes longer than the timeout, and longer than the request path's
      // one-second Redis command timeout (a flood of connections accepted at once): both replies are in
      // their sockets when it ends, and the timers are due too.
      const until = performance.now() + 1_100;
      while (performance.now() < until);
      expect(await answer).toEqual({ postgres: true, redis: true });
    } finally {
      await pg.close();
      redis.close();
    }
  });

  it('says not ready within its timeout when PostgreSQL or Redis accepts connections but never answers', async () => {
    const stalledPg = await silentServer();
    const stalledRedis = await silentServer();
    const pg = postgresProbe(`postgres://postgres@127.0.0.1:${stalledPg.port}/nothing`, 'sorting:test:readiness', 500);
    const redis = createRedis(`redis://127.0.0.1:${stalledRedis.port}`, REQUEST_PATH_REDIS);
    const readiness = new Readiness({ postgres: pg.probe, redis: redisProbe(redis) }, { timeoutMs: 500, cacheMs: 0, maxAgeMs: 0 });
    try {
      const t0 = performance.now();
      expect(await readiness.check()).toEqual({ postgres: false, redis: false });
      // Bounded by the timeout (plus a loaded machine's slack), not by a connect or reconnect that never ends.
      expect(performance.now() - t0).toBeLessThan(3000);
      expect(await readiness.check()).toEqual({ postgres: false, redis: false });
    } finally {
      await pg.close();
      redis.disconnect();
      await stalledPg.close();
      await stalledRedis.close();
    }
  });
});

describe('GET /readyz while every pool connection is busy', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ env: { DATABASE_POOL_MAX: '2' } });
  });
  afterAll(async () => {
    await api?.close();
  });

  it('answers ready at once, from its own connection, while requests wait for the pool', async () => {
    const conn = api.runtime.orm.em.getConnection();
    const busy = [conn.execute('select pg_sleep(3)'), conn.execute('select pg_sleep(3)')];
    try {
      // The pool's two connections are taken: a request through it would wait about 3 s.
      const t0 = performance.now();
      const res = await request(api.app).get('/readyz');
      const ms = performance.now() - t0;
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'ready', checks: { postgres: true, redis: true } });
      expect(ms).toBeLessThan(2500);
    } finally {
      await Promise.all(busy);
    }
  });

  it('is 503 problem+json with Retry-After and its checks when a dependency does not answer', async () => {
    const down = await startTestApi({ env: { REDIS_URL: 'redis://127.0.0.1:1' } });
    try {
      const res = await request(down.app).get('/readyz');
      expect(res.status).toBe(503);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.headers['retry-after']).toMatch(/^\d+$/);
      expect(res.body).toMatchObject({ code: 'service-unavailable', checks: { postgres: true, redis: false } });
      expect(res.body.detail).toMatch(/Redis/);
    } finally {
      await down.close();
    }
  });
});

describe('the health listener (HEALTH_PORT)', () => {
  it('answers /healthz and /readyz like the API, and nothing else, without the API behind it', async () => {
    const up = await startTestApi();
    const down = await startTestApi({ env: { REDIS_URL: 'redis://127.0.0.1:1' } });
    const servers = [createHealthServer(up.deps.readiness), createHealthServer(down.deps.readiness)];
    try {
      const [upPort, downPort] = await Promise.all(
        servers.map((srv) => new Promise<number>((r) => srv.listen(0, '127.0.0.1', () => r((srv.address() as AddressInfo).port)))),
      );
      const get = (port: number, path: string, method = 'GET') => fetch(`http://127.0.0.1:${port}${path}`, { method });
      const health = await get(upPort!, '/healthz');
      expect([health.status, await health.json()]).toEqual([200, { status: 'ok' }]);
      const ready = await get(upPort!, '/readyz');
      expect([ready.status, await ready.json()]).toEqual([200, { status: 'ready', checks: { postgres: true, redis: true } }]);

      const notReady = await get(downPort!, '/readyz');
      expect(notReady.status).toBe(503);
      expect(notReady.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(notReady.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(await notReady.json()).toMatchObject({ code: 'service-unavailable', checks: { postgres: true, redis: false } });
      // The process is alive whatever its dependencies say.
      expect((await get(downPort!, '/healthz')).status).toBe(200);

      const other = await get(upPort!, '/api/v1/walls');
      expect(other.status).toBe(404);
      expect(await other.json()).toMatchObject({ code: 'not-found' });
      const post = await get(upPort!, '/readyz', 'POST');
      expect(post.status).toBe(405);
      expect(post.headers.get('allow')).toBe('GET, HEAD');
    } finally {
      await Promise.all(servers.map((srv) => new Promise((r) => srv.close(r))));
      await down.close();
      await up.close();
    }
  });
});
