import { spawn } from 'node:child_process';
import path from 'node:path';
import request from 'supertest';
import WebSocket from 'ws';
import { Client as PgClient } from 'pg';
import { toAppError } from '../../services/api/http/error-handler';
import { isDependencyOutage } from '../../shared/errors/outage';
import { createRedis } from '../../shared/redis/redis';
import { initOrm } from '../../shared/db/orm';
import { startTestApi, waitFor, type TestApi } from '../support/test-api';
import { buildFloor, connect, scan, type Floor } from '../support/sorting-floor';
import { closedPort, logRecords, spawnApiProcess, stopApiProcess, type ApiProcess } from '../support/api-process';
import { spawnWorkerProcess, stopWorkerProcess, waitUntilReady, workerOutput, type WorkerProcess } from '../support/worker-process';

/*
 * Outages answer 503 `service-unavailable` with Retry-After, never 500, and
 * never stop the process; a failure nothing handles stops it with one JSON log record and exit 1.
 */

// Child processes start slowly on a loaded machine (tsx compiles on the fly): generous bounds.
jest.setTimeout(300_000);
const ROOT = path.resolve(__dirname, '../..');

function expectJsonLog(p: Pick<ApiProcess, 'output'>): void {
  const raw = logRecords(p).filter((r) => 'raw' in r);
  expect(raw).toEqual([]);
}

describe('errors of an unavailable PostgreSQL or Redis are recognized (real errors from a closed port)', () => {
  it('maps a refused PostgreSQL connection, a refused Redis and a Redis connection that is not open to 503', async () => {
    const port = await closedPort();
    const orm = await initOrm(`postgres://postgres@127.0.0.1:${port}/nothing`, 1);
    const pgError = await orm.em.fork().execute('select 1').catch((e: unknown) => e);
    await orm.close();
    const pg = new PgClient({ connectionString: `postgres://postgres@127.0.0.1:${port}/nothing` });
    const rawPgError = await pg.connect().catch((e: unknown) => e);

    const redis = createRedis(`redis://127.0.0.1:${port}`, { maxRetriesPerRequest: 1 });
    const redisError = await redis.get('x').catch((e: unknown) => e);
    redis.disconnect();
    const offline = createRedis(`redis://127.0.0.1:${port}`, { enableOfflineQueue: false, lazyConnect: true });
    const closedError = await offline.get('x').catch((e: unknown) => e);
    offline.disconnect();

    for (const err of [pgError, rawPgError, redisError, closedError]) {
      expect(typeof (err as Error).message).toBe('string');
      expect(isDependencyOutage(err)).toBe(true);
      const app = toAppError(err);
      expect({ status: app.status, code: app.code }).toEqual({ status: 503, code: 'service-unavailable' });
      expect(app.headers?.['Retry-After']).toMatch(/^\d+$/);
    }
    // PostgreSQL's own "unavailable" answers, as pg reports them (57P01: admin shutdown; class 08).
    for (const code of ['57P01', '57P03', '08006', '53300']) expect(isDependencyOutage(Object.assign(new Error('x'), { code }))).toBe(true);
    // and what is not an outage stays what it is
    for (const code of ['23505', '22P02', '42601']) expect(toAppError(Object.assign(new Error('x'), { code })).status).toBe(500);
  });
});

describe('a failure nothing handles', () => {
  it.each(['rejection', 'exception'])('an unhandled %s is logged as JSON with its stack, and the process exits 1', async (kind) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/fatal-error-child.ts', kind], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    const p = { output: '', code: null as number | null, exited: false };
    child.stdout.on('data', (c: Buffer) => (p.output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (p.output += c.toString()));
    child.once('exit', (code) => Object.assign(p, { code, exited: true }));
    await waitFor(() => p.exited, { timeoutMs: 90_000, what: 'the child to exit' }).catch((err: Error) => {
      child.kill('SIGKILL');
      throw err;
    });
    expect(p.code).toBe(1);
    expectJsonLog(p);
    const fatal = logRecords(p).find((r) => r.level === 60);
    expect(fatal).toMatchObject({ kind: kind === 'rejection' ? 'unhandledRejection' : 'uncaughtException', err: { message: expect.stringMatching(/^boom/) } });
    expect((fatal!.err as { stack: string }).stack).toMatch(/fatal-error-child/);
    expect(logRecords(p).some((r) => r.msg === 'closed what it could')).toBe(true);
  });
});

describe('the API while Redis is unreachable', () => {
  let api: TestApi;
  let floor: Floor;
  let child: ApiProcess | undefined;
  beforeAll(async () => {
    api = await startTestApi();
    floor = await buildFloor(api);
  });
  afterAll(async () => {
    if (child) await stopApiProcess(child);
    await api?.close();
  });

  it('refuses a WebSocket and a command with 503, keeps running, and logs only JSON', async () => {
    child = await spawnApiProcess({ REDIS_URL: `redis://127.0.0.1:${await closedPort()}` });
    const base = `127.0.0.1:${child.port}`;
    const token = floor.tenant.adminToken;
    try {
      // Once this opening killed the process about a second later (MaxRetriesPerRequestError).
      for (let i = 0; i < 3; i++) {
        const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
          const ws = new WebSocket(`ws://${base}/api/v1/events/ws?wallId=${floor.wallId}`, { headers: { Authorization: `Bearer ${token}` } });
          ws.once('open', () => reject(new Error('the WebSocket opened without Redis')));
          ws.once('error', reject);
          ws.once('unexpected-response', (_req, res) => {
            let body = '';
            res.on('data', (c: Buffer) => (body += c.toString()));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          });
        });
        expect(answer.status).toBe(503);
        expect(JSON.parse(answer.body)).toMatchObject({ code: 'service-unavailable' });
      }
      const sse = await request(`http://${base}`).get(`/api/v1/events?wallId=${floor.wallId}`).set('Authorization', `Bearer ${token}`);
      expect(sse.status).toBe(503);
      expect(sse.headers['retry-after']).toMatch(/^\d+$/);

      const s1 = await floor.sorter(1);
      const command = await request(`http://${base}`).post(`/api/v1/walls/${floor.wallId}/sessions`).set('Authorization', s1.auth).send({});
      expect({ status: command.status, code: command.body.code }).toEqual({ status: 503, code: 'service-unavailable' });
      expect(command.headers['retry-after']).toMatch(/^\d+$/);

      // Still alive after the subscription failures settled (they surfaced about a second after the opening).
      // One line per error message for all the process's connections that failed alike (every 5 s).
      await waitFor(() => logRecords(child!).some((r) => typeof r.msg === 'string' && r.msg.startsWith('redis connection') && r.msg.includes("'wall events'")), {
        timeoutMs: 10_000,
        what: "the wall events connection's error in the log",
      });
      const health = await request(`http://${base}`).get('/healthz');
      expect(health.status).toBe(200);
      expect(child.exited).toBe(false);
      expectJsonLog(child);
      expect(child.output).not.toMatch(/Unhandled error event/);
    } catch (err) {
      (err as Error).message += `\n----- API process -----\n${child.output.slice(-10_000)}`;
      throw err;
    }
  });
});

describe('the API and the workers while PostgreSQL is unreachable', () => {
  let api: TestApi;
  let floor: Floor;
  let child: ApiProcess | undefined;
  const workers: WorkerProcess[] = [];
  beforeAll(async () => {
    api = await startTestApi();
    floor = await buildFloor(api, { orders: [{ id: 1, items: [{ sku: 'SKU-A', qty: 1 }] }] });
  });
  afterAll(async () => {
    if (child) await stopApiProcess(child);
    await Promise.all(workers.map((w) => stopWorkerProcess(w)));
    await api?.close();
  });

  it('answers 503 with Retry-After, not 500, for reads, sign-ins and event streams', async () => {
    child = await spawnApiProcess({ DATABASE_URL: `postgres://postgres@127.0.0.1:${await closedPort()}/nothing` });
    const http = request(`http://127.0.0.1:${child.port}`);
    try {
      for (const res of [
        await http.get('/api/v1/walls').set('Authorization', floor.tenant.auth),
        await http.post('/token').send({ username: floor.tenant.adminEmail, password: floor.tenant.password }),
        await http.get(`/api/v1/events?wallId=${floor.wallId}`).set('Authorization', floor.tenant.auth),
      ]) {
        expect({ status: res.status, code: res.body.code }).toEqual({ status: 503, code: 'service-unavailable' });
        expect(res.headers['retry-after']).toMatch(/^\d+$/);
      }
      expect((await http.get('/readyz')).status).toBe(503);
      expect(child.exited).toBe(false);
      expectJsonLog(child);
    } catch (err) {
      (err as Error).message += `\n----- API process -----\n${child.output.slice(-10_000)}`;
      throw err;
    }
  });

  it("a sorting worker that cannot reach PostgreSQL answers the API's command with 503, not internal-error", async () => {
    const s1 = await floor.sorter(1);
    const healthy = spawnWorkerProcess('healthy sorting worker', { direct: true });
    workers.push(healthy);
    try {
      await waitUntilReady(healthy);
      const session = await connect(api, floor, s1.auth);
      expect(session.status).toBe(200);
      await stopWorkerProcess(healthy);
      const cut = spawnWorkerProcess('sorting worker without PostgreSQL', { direct: true, env: { DATABASE_URL: `postgres://postgres@127.0.0.1:${await closedPort()}/nothing` } });
      workers.push(cut);
      await waitUntilReady(cut);
      const res = await scan(api, s1.auth, session.body.token, 'SKU-A');
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 503, code: 'service-unavailable' });
      expect(res.headers['retry-after']).toMatch(/^\d+$/);
    } catch (err) {
      (err as Error).message += `\n${workerOutput(workers)}`;
      throw err;
    }
  });
});
