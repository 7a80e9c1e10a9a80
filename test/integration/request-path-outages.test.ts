import { initOrm, migrate } from '../../shared/db/orm';
import { createClient } from '../../shared/tenancy/create-client.use-case';
import { addWall, addWarehouse } from '../support/fixtures';
import { logRecords, spawnApiProcess, stopApiProcess, type ApiProcess } from '../support/api-process';
import { startOwnPostgres, type OwnPostgres } from '../support/own-postgres';
import { startOwnRedis, type OwnRedis } from '../support/own-redis';
import { waitFor } from '../support/wait-for';
import { READINESS } from '../../services/api/http/readiness';
import { TEST_PG_BASE, workerDbName } from '../support/test-db';

/*
 * While PostgreSQL or Redis is down, every request that is not a workflow command is answered at once:
 * 503 `service-unavailable` problem+json with Retry-After where it needs the missing server, its normal
 * answer where it does not; never a request held until a pool or a reconnect gives up. The servers are
 * the test's own, stopped in the middle of a stream of requests and started again.
 */

// Child processes start slowly on a loaded machine: generous bounds for set-up.
jest.setTimeout(240_000);

/**
 * The service answers within about a second (a Redis command's timeout; PostgreSQL refusals at once);
 * the margin is for a loaded machine. Waiting for a pool's 30 s acquire timeout, or for ioredis to give
 * up after its reconnect attempts (3–4 s a few seconds into an outage, more later), would exceed it.
 */
const ANSWERED_WITHIN_MS = 2_500;
const CLIENT_GIVES_UP_MS = 20_000;

interface Answer {
  name: string;
  status: number;
  code: string | null;
  retryAfter: string | null;
  contentType: string | null;
  ms: number;
  at: number;
}

/** One request; an SSE opening is closed as soon as its headers are in. No answer within 20 s is status 0. */
async function ask(name: string, url: string, init: RequestInit = {}): Promise<Answer> {
  const t0 = performance.now();
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(CLIENT_GIVES_UP_MS) });
    const type = res.headers.get('content-type');
    let code: string | null = null;
    if (type?.includes('text/event-stream')) await res.body?.cancel();
    else {
      const text = await res.text();
      if (res.status >= 400 && type?.includes('json')) code = (JSON.parse(text) as { code?: string }).code ?? null;
    }
    return { name, status: res.status, code, retryAfter: res.headers.get('retry-after'), contentType: type, ms: performance.now() - t0, at: t0 };
  } catch (err) {
    return { name, status: 0, code: (err as Error).name, retryAfter: null, contentType: null, ms: performance.now() - t0, at: t0 };
  }
}

/** Sends every kind of request in turn, a few at a time, until stopped; returns every answer. */
function streamOfRequests(requests: (() => Promise<Answer>)[]): { stop(): Promise<Answer[]>; answers: Answer[] } {
  const answers: Answer[] = [];
  let running = true;
  const lanes = [0, 1, 2].map(async (lane) => {
    for (let i = lane; running; i++) {
      answers.push(await requests[i % requests.length]!());
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

/** /readyz reuses its last answer for a moment: a 200 that old is the answer of a check made before the outage. */
const READYZ_MAY_LAG_MS = READINESS.cacheMs + READINESS.timeoutMs + 500;

function expectHonest(answers: Answer[], from: number, to: number, healthy: (a: Answer) => boolean): void {
  // Begun and answered while the server was away (one begun before its return may be answered after it, by it).
  const during = answers.filter((a) => a.at >= from && a.at + a.ms <= to);
  expect(during.length).toBeGreaterThan(20);
  const stale = (a: Answer) => a.name === 'readyz' && a.status === 200 && a.at < from + READYZ_MAY_LAG_MS;
  const wrong = during.filter(
    (a) =>
      a.ms > ANSWERED_WITHIN_MS ||
      !(healthy(a) || stale(a) || (a.status === 503 && a.code === 'service-unavailable' && /^\d+$/.test(a.retryAfter ?? '') && /problem\+json/.test(a.contentType ?? ''))),
  );
  expect(wrong).toEqual([]);
}

/** Every kind of request that is not a workflow command: probes, reads, a sign-in, a hub opening. */
function requestsOf(base: string, auth: string, wallId: number, admin: { email: string; password: string }): (() => Promise<Answer>)[] {
  return [
    () => ask('healthz', `${base}/healthz`),
    () => ask('readyz', `${base}/readyz`),
    () => ask('walls', `${base}/api/v1/walls`, { headers: { authorization: auth } }),
    () => ask('wall', `${base}/api/v1/walls/${wallId}`, { headers: { authorization: auth } }),
    () => ask('sign-in', `${base}/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: admin.email, password: admin.password }) }),
    () => ask('sse', `${base}/api/v1/events?wallId=${wallId}`, { headers: { authorization: auth } }),
  ];
}

/**
 * Runs `outage` while the requests stream, then `check` on every answer; whatever the outage, every
 * request was answered (none waited for the client's patience), the API process lives and logged only
 * JSON. A failure carries the API's output.
 */
async function throughOutage(api: ApiProcess, requests: (() => Promise<Answer>)[], outage: (answers: Answer[]) => Promise<void>, check: (answers: Answer[]) => void): Promise<void> {
  const stream = streamOfRequests(requests);
  try {
    await outage(stream.answers);
    const answers = await stream.stop();
    check(answers);
    expect(answers.filter((a) => a.status === 0)).toEqual([]);
    expect(api.exited).toBe(false);
    expect(logRecords(api).filter((r) => 'raw' in r)).toEqual([]);
  } catch (err) {
    await stream.stop();
    (err as Error).message += `\n----- API process -----\n${api.output.slice(-8_000)}`;
    throw err;
  }
}

describe('PostgreSQL stops while requests arrive', () => {
  let pg: OwnPostgres;
  let api: ApiProcess | undefined;
  let wallId = 0;
  const admin = { email: 'admin@outage.example.com', password: 'outage-admin-password' };

  beforeAll(async () => {
    pg = await startOwnPostgres();
    const orm = await initOrm(pg.url, 2);
    try {
      await migrate(orm);
      const { clientId } = await createClient(orm.em.fork(), { name: 'Outage Co', team: 'outage', adminEmail: admin.email, adminPassword: admin.password, hashRounds: 4 });
      const wh = await addWarehouse(orm.em.fork(), clientId, { id: 1 });
      wallId = (await addWall(orm.em.fork(), clientId, { warehouseId: wh.id })).id;
    } finally {
      await orm.close();
    }
    // An acquire timeout of 30 s: an answer that waited for the pool to give up would show.
    api = await spawnApiProcess({ DATABASE_URL: pg.url, DATABASE_ACQUIRE_TIMEOUT_MS: '30000' });
  });
  afterAll(async () => {
    if (api) await stopApiProcess(api);
    await pg?.close();
  });

  it('answers every read, sign-in, hub opening and probe within seconds, 503 with Retry-After, and serves again once it is back', async () => {
    const base = `http://127.0.0.1:${api!.port}`;
    const signIn = await fetch(`${base}/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: admin.email, password: admin.password }) });
    expect(signIn.status).toBe(200);
    const auth = `Bearer ${((await signIn.json()) as { access_token: string }).access_token}`;
    const ok = (a: Answer) => a.status === 200;
    await waitFor(async () => (await ask('readyz', `${base}/readyz`)).status === 200, { timeoutMs: 20_000, what: 'the API to be ready' });
    let stoppedAt = 0;
    let restartAt = 0;
    await throughOutage(
      api!,
      requestsOf(base, auth, wallId, admin),
      async (answers) => {
        await waitFor(() => answers.filter(ok).length >= 12, { timeoutMs: 30_000, what: 'answers while PostgreSQL is up' });
        stoppedAt = performance.now();
        await pg.kill();
        await waitFor(() => answers.some((a) => a.name === 'readyz' && a.at > stoppedAt && a.status === 503), { timeoutMs: 10_000, what: '/readyz to say not ready' });
        // Long enough for a pool that retries connections, or a client that waits for one, to show.
        await waitFor(() => answers.filter((a) => a.at > stoppedAt + 6_000).length >= 6, { timeoutMs: 60_000, what: 'requests during the outage' });
        restartAt = performance.now();
        await pg.start();
        await waitFor(() => answers.some((a) => a.name === 'walls' && a.at > restartAt && a.status === 200), { timeoutMs: 30_000, what: 'reads to work again' });
        await waitFor(() => answers.some((a) => a.name === 'readyz' && a.at > restartAt && a.status === 200), { timeoutMs: 30_000, what: '/readyz to say ready again' });
      },
      (answers) => {
        // During the outage: /healthz stays 200 (the process lives); everything else answers 503 at once.
        expectHonest(answers, stoppedAt, restartAt, (a) => a.name === 'healthz' && a.status === 200);
        expect(answers.filter((a) => a.at > stoppedAt + READYZ_MAY_LAG_MS && a.at < restartAt && a.name !== 'healthz').every((a) => a.status === 503)).toBe(true);
      },
    );
  });
});

describe('Redis stops while requests arrive', () => {
  let redis: OwnRedis;
  let api: ApiProcess | undefined;

  beforeAll(async () => {
    redis = await startOwnRedis();
    api = await spawnApiProcess({ REDIS_URL: redis.url, DATABASE_URL: `${TEST_PG_BASE}/${workerDbName(process.env.JEST_WORKER_ID ?? '1')}` });
  });
  afterAll(async () => {
    if (api) await stopApiProcess(api);
    await redis?.close();
  });

  it('keeps reads at 200, answers sign-ins, hub openings and /readyz 503 within seconds, and recovers when it is back', async () => {
    const base = `http://127.0.0.1:${api!.port}`;
    const pg = await initOrm(`${TEST_PG_BASE}/${workerDbName(process.env.JEST_WORKER_ID ?? '1')}`, 2);
    const admin = { email: `admin-${Date.now()}@redis-outage.example.com`, password: 'redis-outage-password' };
    let wallId: number;
    try {
      const { clientId } = await createClient(pg.em.fork(), { name: 'Redis Outage Co', team: `redis-outage-${Date.now()}`, adminEmail: admin.email, adminPassword: admin.password, hashRounds: 4 });
      const wh = await addWarehouse(pg.em.fork(), clientId, { id: 1 });
      wallId = (await addWall(pg.em.fork(), clientId, { warehouseId: wh.id })).id;
    } finally {
      await pg.close();
    }
    const first = await fetch(`${base}/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: admin.email, password: admin.password }) });
    expect(first.status).toBe(200);
    const auth = `Bearer ${((await first.json()) as { access_token: string }).access_token}`;
    await waitFor(async () => (await ask('readyz', `${base}/readyz`)).status === 200, { timeoutMs: 20_000, what: 'the API to be ready' });
    let killedAt = 0;
    let restartAt = 0;
    // Reads and /healthz need no Redis: they stay 200 throughout.
    const needsNoRedis = (a: Answer) => ['healthz', 'walls', 'wall'].includes(a.name);
    await throughOutage(
      api!,
      requestsOf(base, auth, wallId, admin),
      async (answers) => {
        await waitFor(() => answers.filter((a) => a.status === 200).length >= 12, { timeoutMs: 30_000, what: 'answers while Redis is up' });
        killedAt = performance.now();
        await redis.kill();
        // Long enough for the reconnect delays of a client without a command timeout to grow past seconds.
        await waitFor(() => answers.filter((a) => a.at > killedAt + 8_000).length >= 6, { timeoutMs: 60_000, what: 'requests during the outage' });
        restartAt = performance.now();
        await redis.start();
        await waitFor(() => answers.some((a) => a.name === 'sign-in' && a.at > restartAt && a.status === 200), { timeoutMs: 30_000, what: 'sign-ins to work again' });
        await waitFor(() => answers.some((a) => a.name === 'sse' && a.at > restartAt && a.status === 200), { timeoutMs: 30_000, what: 'hub streams to open again' });
        await waitFor(() => answers.some((a) => a.name === 'readyz' && a.at > restartAt && a.status === 200), { timeoutMs: 30_000, what: '/readyz to say ready again' });
      },
      (answers) => {
        expectHonest(answers, killedAt, restartAt, (a) => needsNoRedis(a) && a.status === 200);
        expect(answers.filter((a) => needsNoRedis(a) && a.status !== 200)).toEqual([]);
        for (const name of ['readyz', 'sign-in', 'sse']) {
          expect(answers.some((a) => a.name === name && a.at > killedAt && a.at < restartAt && a.status === 503)).toBe(true);
        }
      },
    );
  });
});
