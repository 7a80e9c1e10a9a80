import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import IORedis from 'ioredis';
import { READINESS } from '../../services/api/http/readiness';
import { configSchema } from '../../shared/config/config';
import { ensureDatabase, initOrm, migrate } from '../../shared/db/orm';
import { logRecords, spawnApiProcess, stopApiProcess, type ApiProcess } from '../support/api-process';
import { startOwnPostgres, type OwnPostgres } from '../support/own-postgres';
import { startOwnRedis, type OwnRedis } from '../support/own-redis';
import { buildFloor } from '../support/sorting-floor';
import { startTestApi, waitFor } from '../support/test-api';
import { spawnWorkerProcess, stopWorkerProcess, waitUntilReady, workerOutput, type WorkerProcess } from '../support/worker-process';

/*
 * The fault matrix: each row a fault of a server the service depends on, each column a kind of request
 * a floor sends. While the fault lasts, every request is answered within its bound: its normal answer
 * where it does not need the server, else 503 `service-unavailable` or 504 `command-timeout`
 * (it may still be applied: its Idempotency-Key settles it) with Retry-After; never a request held until
 * the server is back. Afterwards the floor works again, the service's Redis connections return to their
 * steady count within 30 s (none outlives its use, docs/operations.md "Outages"), and the processes
 * logged only JSON lines, few of them. A new fault is one row of FAULTS; a new kind of request one
 * entry of REQUESTS.
 *
 * The API and a sorting worker run as processes of their own (as deployed), on a PostgreSQL and a
 * Redis of the test's own; the lease of a command partition lasts 3 s, so a fault can outlast it.
 */

jest.setTimeout(420_000);

const LEASE_TTL_MS = 3_000;
/** How long the service's Redis connections may take to return to their steady count after a fault. */
const CONNECTIONS_BACK_MS = 30_000;

/** The bound of each kind of request while a server is away (the requirement: 2 s; readiness 1 s; a scan 3 s under a frozen Redis). */
const BOUND_MS = { command: 3_000, request: 2_000, probe: READINESS.timeoutMs + 500 } as const;

interface Answer {
  name: string;
  status: number;
  code: string | null;
  retryAfter: string | null;
  ms: number;
  at: number;
}

interface RequestKind {
  name: string;
  bound: keyof typeof BOUND_MS;
  /** The servers it needs: while another one is away it answers as usual. */
  needs: ('redis' | 'postgres')[];
  send(): Promise<Answer>;
}

interface Fault {
  name: string;
  server: 'redis' | 'postgres';
  /** How long the server stays away. */
  holdMs: number;
  begin(): Promise<void> | void;
  end(): Promise<void> | void;
}

/** One request; an SSE opening is closed as soon as its headers are in. No answer within 20 s is status 0. */
async function ask(name: string, url: string, init: RequestInit = {}): Promise<Answer> {
  const at = performance.now();
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(20_000) });
    const type = res.headers.get('content-type');
    let code: string | null = null;
    if (type?.includes('text/event-stream')) await res.body?.cancel();
    else {
      const text = await res.text();
      if (res.status >= 400 && type?.includes('json')) code = (JSON.parse(text) as { code?: string }).code ?? null;
    }
    return { name, status: res.status, code, retryAfter: res.headers.get('retry-after'), ms: performance.now() - at, at };
  } catch (err) {
    return { name, status: 0, code: (err as Error).name, retryAfter: null, ms: performance.now() - at, at };
  }
}

/** Sends every kind of request in turn, three at a time, until stopped. */
function stream(kinds: RequestKind[]): { answers: Answer[]; stop(): Promise<Answer[]> } {
  const answers: Answer[] = [];
  let running = true;
  const lanes = [0, 1, 2].map(async (lane) => {
    for (let i = lane; running; i++) {
      answers.push(await kinds[i % kinds.length]!.send());
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

describe('the fault matrix: every request answered in time through each fault of Redis and PostgreSQL', () => {
  let pg: OwnPostgres;
  let redis: OwnRedis;
  let api: ApiProcess | undefined;
  let worker: WorkerProcess | undefined;
  let probe: IORedis;
  let kinds: RequestKind[] = [];
  let steadyConnections = 0;
  const figures: Record<string, unknown>[] = [];

  /** The service's connections to Redis (every client but this test's own probe): each one's name, age, idle time and last command. */
  const serviceClients = async () =>
    String(await probe.client('LIST'))
      .trim()
      .split('\n')
      .filter((l: string) => l && !l.includes('name=fault-matrix-probe'))
      .map((l) => l.split(' ').filter((f) => /^(name|age|idle|cmd)=/.test(f)).join(' '));
  const serviceConnections = async () => (await serviceClients()).length;
  /** The connections by name (each process names its own: role, pid, what for), as counted at the steady state. */
  let steadyNames = new Map<string, number>();
  const byName = (clients: string[]) => {
    const counts = new Map<string, number>();
    for (const c of clients) {
      const name = /name=(\S*)/.exec(c)?.[1] ?? '';
      counts.set(name, (counts.get(name) ?? 0) + 1);
    }
    return counts;
  };

  const FAULTS: Fault[] = [
    { name: 'Redis refuses (killed, restarted with its data)', server: 'redis', holdMs: 8_000, begin: () => redis.kill(), end: () => redis.start() },
    { name: 'Redis hangs (SIGSTOP)', server: 'redis', holdMs: 12_000, begin: () => redis.freeze(), end: () => redis.thaw() },
    {
      name: 'Redis gone longer than a lease, restarted empty',
      server: 'redis',
      holdMs: LEASE_TTL_MS + 2_000,
      begin: () => redis.kill(),
      end: async () => {
        redis.wipe();
        await redis.start();
      },
    },
    { name: 'PostgreSQL refuses (killed)', server: 'postgres', holdMs: 8_000, begin: () => pg.kill(), end: () => pg.start() },
    { name: 'PostgreSQL hangs (SIGSTOP)', server: 'postgres', holdMs: 8_000, begin: () => pg.freeze(), end: () => pg.thaw() },
  ];

  beforeAll(async () => {
    pg = await startOwnPostgres();
    redis = await startOwnRedis();
    const databaseUrl = pg.urlOf('sorting');
    await ensureDatabase(databaseUrl);
    const orm = await initOrm(databaseUrl, 1);
    await migrate(orm);
    await orm.close();
    // The production bound of a statement (test/support/worker-env.ts lifts it for the other tests).
    const env = { DATABASE_URL: databaseUrl, REDIS_URL: redis.url, SORTING_LEASE_TTL_MS: String(LEASE_TTL_MS), DATABASE_QUERY_TIMEOUT_MS: String(configSchema.shape.DATABASE_QUERY_TIMEOUT_MS.parse(undefined)) };
    // The floor is built through an API of this process (it signs its users in), closed before the faults.
    const setup = await startTestApi({ env });
    const floor = await buildFloor(setup, { slots: 20, orders: Array.from({ length: 20 }, (_, i) => ({ id: i + 1, items: [{ sku: 'SKU-A', qty: 1000 }] })) });
    const sorter = await floor.sorter(1);
    const manager = await floor.manager();
    await setup.close();

    worker = spawnWorkerProcess('sorting', { env });
    api = await spawnApiProcess(env);
    await waitUntilReady(worker);
    const base = `http://127.0.0.1:${api.port}`;
    const json = { 'content-type': 'application/json' };
    const session = await fetch(`${base}/api/v1/walls/${floor.wallId}/sessions`, { method: 'POST', headers: { ...json, authorization: sorter.auth }, body: '{}' });
    expect(session.status).toBe(200);
    const sessionToken = ((await session.json()) as { token: string }).token;
    const scanBody = JSON.stringify({ sessionToken, barcode: 'SKU-A' });
    const first = await fetch(`${base}/api/v1/sort-box-items`, { method: 'POST', headers: { ...json, authorization: sorter.auth }, body: scanBody });
    expect(first.status).toBe(200);
    const itemId = ((await first.json()) as { id: number }).id;
    const signIn = JSON.stringify({ username: floor.tenant.adminEmail, password: floor.tenant.password });

    kinds = [
      { name: 'healthz', bound: 'probe', needs: [], send: () => ask('healthz', `${base}/healthz`) },
      { name: 'readyz', bound: 'probe', needs: ['redis', 'postgres'], send: () => ask('readyz', `${base}/readyz`) },
      {
        name: 'scan',
        bound: 'command',
        needs: ['redis', 'postgres'],
        send: () => ask('scan', `${base}/api/v1/sort-box-items`, { method: 'POST', headers: { ...json, authorization: sorter.auth, 'idempotency-key': randomUUID() }, body: scanBody }),
      },
      { name: 'wall', bound: 'request', needs: ['postgres'], send: () => ask('wall', `${base}/api/v1/walls/${floor.wallId}`, { headers: { authorization: manager.auth } }) },
      { name: 'walls', bound: 'request', needs: ['postgres'], send: () => ask('walls', `${base}/api/v1/walls`, { headers: { authorization: manager.auth } }) },
      {
        name: 'confirm',
        bound: 'command',
        needs: ['redis', 'postgres'],
        send: () => ask('confirm', `${base}/api/v1/sort-box-items/${itemId}/confirm`, { method: 'PATCH', headers: { ...json, authorization: sorter.auth }, body: '{}' }),
      },
      { name: 'sign-in', bound: 'request', needs: ['redis', 'postgres'], send: () => ask('sign-in', `${base}/token`, { method: 'POST', headers: json, body: signIn }) },
      { name: 'sse', bound: 'request', needs: ['redis', 'postgres'], send: () => ask('sse', `${base}/api/v1/events?wallId=${floor.wallId}`, { headers: { authorization: manager.auth } }) },
    ];

    probe = new IORedis(redis.url, { connectionName: 'fault-matrix-probe', maxRetriesPerRequest: 1, retryStrategy: () => 200 });
    probe.on('error', () => undefined);
    // The steady count: every connection the floor's requests open, opened.
    const warm = stream(kinds);
    await waitFor(() => kinds.every((k) => warm.answers.some((a) => a.name === k.name && a.status < 500)), { timeoutMs: 30_000, what: 'every kind of request answered' });
    await warm.stop();
    const steady = await serviceClients();
    steadyConnections = steady.length;
    steadyNames = byName(steady);
  });

  afterAll(async () => {
    process.stdout.write(`\nfault matrix: ${JSON.stringify({ steadyConnections, steadyByName: Object.fromEntries(steadyNames), rows: figures }, null, 1)}\n`);
    if (process.env.FAULT_MATRIX_DUMP) {
      writeFileSync(`${process.env.FAULT_MATRIX_DUMP}.api.log`, api?.output ?? '');
      writeFileSync(`${process.env.FAULT_MATRIX_DUMP}.worker.log`, worker?.output ?? '');
    }
    probe?.disconnect();
    redis?.thaw();
    pg?.thaw();
    if (api) await stopApiProcess(api);
    if (worker) await stopWorkerProcess(worker);
    await redis?.close();
    await pg?.close();
  });

  const failure = (err: unknown) => {
    (err as Error).message += `\n----- API process -----\n${api?.output.slice(-6_000)}\n${workerOutput(worker ? [worker] : [])}`;
    return err;
  };

  it.each(FAULTS.map((f) => [f.name, f] as const))('%s', async (_name, fault) => {
    const bytesBefore = api!.bytes + worker!.bytes;
    const s = stream(kinds);
    let downAt = 0;
    let backAt = 0;
    try {
      await waitFor(() => s.answers.filter((a) => a.status === 200).length >= 6, { timeoutMs: 30_000, what: 'answers before the fault' });
      downAt = performance.now();
      await fault.begin();
      // The fault lasts its time, and until every kind of request was begun and answered during it (on a
      // loaded machine a lane's requests take longer, so a fixed time alone may leave a kind untried).
      const triedDuringFault = () => kinds.every((k) => s.answers.some((a) => a.name === k.name && a.at >= downAt));
      await waitFor(() => performance.now() >= downAt + fault.holdMs && triedDuringFault(), {
        timeoutMs: fault.holdMs + 30_000,
        intervalMs: 100,
        what: 'the fault to last, every kind of request answered during it',
      });
      backAt = performance.now();
      await fault.end();
      // The floor works again: a scan, a sign-in, a hub stream and /readyz answer 200.
      for (const name of ['scan', 'sign-in', 'sse', 'readyz']) {
        await waitFor(() => s.answers.some((a) => a.name === name && a.at > backAt && a.status === 200), { timeoutMs: 60_000, what: `${name} to answer 200 again` });
      }
    } catch (err) {
      await s.stop();
      fault.end();
      throw failure(err);
    }
    const answers = await s.stop();
    const kindOf = new Map(kinds.map((k) => [k.name, k]));
    // Begun while the server was away; those begun in the last moments may be answered by it, after it is back.
    const during = answers.filter((a) => a.at >= downAt && a.at < backAt);
    for (const k of kinds) expect(during.some((a) => a.name === k.name)).toBe(true);
    // Answered before the fault could be noticed: a probe's cached answer, a request under way.
    const settling = (a: Answer) => a.at < downAt + READINESS.maxAgeMs + READINESS.timeoutMs + 500;
    const outageAnswer = (a: Answer) =>
      ((a.status === 503 && a.code === 'service-unavailable') || (a.status === 504 && a.code === 'command-timeout')) && /^\d+$/.test(a.retryAfter ?? '');
    const wrong = during.filter((a) => {
      const k = kindOf.get(a.name)!;
      const late = a.ms > BOUND_MS[k.bound];
      const needsIt = k.needs.includes(fault.server);
      // A request that does not need the server answers as usual; one that does: 503/504, or as usual when it was under way.
      const fine = needsIt ? outageAnswer(a) || (a.status > 0 && a.status < 500 && (settling(a) || a.at + a.ms > backAt)) : a.status > 0 && a.status < 500;
      return (late && a.at + a.ms < backAt + 1_000) || !fine;
    });
    const slowest = Object.fromEntries(kinds.map((k) => [k.name, Math.round(Math.max(0, ...during.filter((a) => a.name === k.name).map((a) => a.ms)))]));
    // The service's Redis connections back to their steady count: none outlives its use.
    let connections = -1;
    const connectionsSince = performance.now();
    await waitFor(
      async () => {
        connections = await serviceConnections().catch(() => -1);
        return connections >= 0 && connections <= steadyConnections;
      },
      { timeoutMs: CONNECTIONS_BACK_MS, intervalMs: 250, what: `the Redis connections back to ${steadyConnections}` },
    ).catch(async (err: Error) => {
      // Which connection outlived its use: the names counted more often than at the steady state first, then every client.
      const clients = await serviceClients().catch(() => [] as string[]);
      const more = [...byName(clients)].filter(([name, n]) => n > (steadyNames.get(name) ?? 0)).map(([name, n]) => `${name || '(no name)'}: ${n}, steady ${steadyNames.get(name) ?? 0}`);
      err.message += ` (last count ${connections})\nmore than at the steady state: ${more.join('; ') || 'none by name'}\n${clients.join('\n')}`;
      throw failure(err);
    });
    const logBytes = api!.bytes + worker!.bytes - bytesBefore;
    figures.push({
      fault: fault.name,
      requests: during.length,
      slowestMs: slowest,
      answers: Object.fromEntries([...new Set(during.map((a) => `${a.name} ${a.status}`))].map((k) => [k, during.filter((a) => `${a.name} ${a.status}` === k).length])),
      connectionsBackMs: Math.round(performance.now() - connectionsSince),
      logBytes,
    });
    try {
      expect(wrong).toEqual([]);
      expect(answers.filter((a) => a.status === 0)).toEqual([]);
      expect(api!.exited).toBe(false);
      expect(worker!.exited).toBe(false);
      // Every line JSON (nothing raw on stderr), no stack trace for an expected condition.
      const records = [...logRecords(api!), ...logRecords(worker!)];
      expect(records.filter((r) => 'raw' in r && !/^\[sorting exited/.test(String(r.raw)))).toEqual([]);
      expect(records.filter((r) => JSON.stringify(r).includes('"stack"') && r.level !== 60 && !String(r.msg).includes('unexpectedly'))).toEqual([]);
      // A few lines per second of fault at most (a 5-minute outage: well under 1 MB).
      expect(logBytes / ((backAt - downAt) / 1000)).toBeLessThan(1_000_000 / 300);
    } catch (err) {
      throw failure(err);
    }
  });
});
