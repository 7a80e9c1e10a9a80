import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import IORedis from 'ioredis';
import path from 'node:path';
import { initOrm } from '../../shared/db/orm';
import { leaseKey } from '../../shared/commands/partition-leases';
import { partitionOf } from '../../shared/commands/partitioning';
import { createClient } from '../../shared/tenancy/create-client.use-case';
import { freePort } from '../../fixtures/local-servers';
import { addEmployee, addOrders, addProducts, addSlots, addWall, addWarehouse } from '../support/fixtures';
import { startOwnPostgres, type OwnPostgres } from '../support/own-postgres';
import { waitFor } from '../support/wait-for';
import { followLogRecords } from '../support/child-process';
import { ensureDatabase, migrate } from '../../shared/db/orm';

/*
 * The fault matrix's rows that need the supervisor of `npm start` (test/integration/fault-matrix.test.ts
 * has the faults of Redis and PostgreSQL): a sorting process killed with SIGKILL while a sorter scans
 * (its walls answer again within 2 s: the supervisor hands its partitions to the other sorting process
 * at once, not when its leases run out), then one Ctrl-C of a terminal (SIGINT to the whole process
 * group, and npm's copy of it to the supervisor at the same moment): every role stops in order, each
 * with its shutdown lines, none killed. The supervisor runs from the sources (under tsx) with two
 * sorting processes and the default lease of 10 s, on this jest worker's database and a Redis prefix
 * of its own.
 */

jest.setTimeout(300_000);

const ROOT = path.resolve(__dirname, '../..');
/** A dead holder's walls answer scans again within this (its lease would hold them 10 s). */
const HANDED_OVER_WITHIN_MS = 2_000;
/** The PostgreSQL outage whose log is measured, under 20 scan+confirm pairs a second. */
const PG_OUTAGE_MS = 20_000;
/** The log of a 5-minute PostgreSQL outage stays under this (scaled from the measured one). */
const LOG_PER_5_MINUTES = 1_000_000;

interface LogLine {
  role?: string;
  msg?: string;
  pid?: number;
  child?: string;
  level?: number;
}

describe('the supervised faults: a dead sorting process, a Ctrl-C', () => {
  let supervisor: ChildProcess | undefined;
  let exited = false;
  const lines: LogLine[] = [];
  let raw = '';
  let redis: IORedis;
  let pg: OwnPostgres | undefined;
  const prefix = `${process.env.QUEUE_PREFIX}-supfault`;

  afterAll(async () => {
    if (supervisor && !exited) {
      supervisor.kill('SIGKILL');
      await waitFor(() => exited, { timeoutMs: 10_000 }).catch(() => undefined);
    }
    if (process.env.FAULT_MATRIX_DUMP) writeFileSync(`${process.env.FAULT_MATRIX_DUMP}.supervised.log`, raw);
    redis?.disconnect();
    await pg?.close();
  });

  it('a SIGKILLed sorting process: its walls answer scans again within 2 s; a PostgreSQL outage logs little; one Ctrl-C stops every role in order', async () => {
    pg = await startOwnPostgres();
    const databaseUrl = pg.urlOf('sorting');
    await ensureDatabase(databaseUrl);
    const orm = await initOrm(databaseUrl, 2);
    await migrate(orm);
    const suffix = randomUUID().slice(0, 8);
    let wallId: number;
    let sorter: { email: string; password: string };
    try {
      const { clientId } = await createClient(orm.em.fork(), { name: `Supfault ${suffix}`, team: `supfault-${suffix}`, adminEmail: `admin-${suffix}@supfault.example.com`, adminPassword: `supfault-${suffix}`, hashRounds: 4 });
      const em = orm.em.fork();
      const wh = await addWarehouse(em, clientId, { id: 1 });
      await addProducts(em, clientId, [{ sku: 'SKU-A' }]);
      await addOrders(em, clientId, [{ id: 1, warehouseId: wh.id, items: [{ sku: 'SKU-A', qty: 10_000 }] }]);
      wallId = (await addWall(em, clientId, { name: `Wall ${suffix}`, warehouseId: wh.id, maxSorters: 6 })).id;
      await addSlots(em, clientId, wallId, 4);
      const e = await addEmployee(orm.em.fork(), clientId, { roles: ['Sorter'], email: `sorter-${suffix}@supfault.example.com`, password: `supfault-sorter-${suffix}` });
      sorter = { email: e.email, password: e.password };
    } finally {
      await orm.close();
    }

    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    supervisor = spawn(process.execPath, ['--import', 'tsx', 'services/main.ts'], {
      cwd: ROOT,
      // Its own process group, as a terminal's foreground job: a Ctrl-C signals the group.
      detached: true,
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        SEED_DEMO: 'false',
        QUEUE_PREFIX: prefix,
        SORTING_WORKERS: '2',
        API_PROCESSES: '1',
        MQTT_URL: 'off',
        DATABASE_URL: databaseUrl,
        DATABASE_POOL_MAX: '3',
        DATABASE_QUERY_TIMEOUT_MS: '1500',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    supervisor.once('exit', () => {
      exited = true;
    });
    let bytes = 0;
    followLogRecords<LogLine>(supervisor, (l) => lines.push(l), (chunk) => {
      bytes += chunk.length;
      raw = (raw + chunk.toString()).slice(-200_000);
    });
    const failure = (err: unknown) => {
      (err as Error).message += `\n----- supervisor and its processes -----\n${raw.slice(-12_000)}`;
      return err;
    };

    try {
      await waitFor(() => lines.filter((l) => l.msg === 'command workers started').length >= 2 && lines.some((l) => l.msg?.startsWith('API listening') === true), {
        timeoutMs: 180_000,
        intervalMs: 200,
        what: 'both sorting processes and the API to start',
      });
      const json = { 'content-type': 'application/json' };
      const signIn = await fetch(`${base}/token`, { method: 'POST', headers: json, body: JSON.stringify({ username: sorter.email, password: sorter.password }) });
      expect(signIn.status).toBe(200);
      const auth = `Bearer ${((await signIn.json()) as { access_token: string }).access_token}`;
      const session = await fetch(`${base}/api/v1/walls/${wallId}/sessions`, { method: 'POST', headers: { ...json, authorization: auth }, body: '{}' });
      expect(session.status).toBe(200);
      const body = JSON.stringify({ sessionToken: ((await session.json()) as { token: string }).token, barcode: 'SKU-A' });

      // The process that holds the wall's partition: its lease names it (host:pid:random).
      redis = new IORedis(process.env.REDIS_URL!, { maxRetriesPerRequest: 1 });
      const lease = leaseKey(prefix, partitionOf(wallId, 8));
      let holderPid = 0;
      await waitFor(
        async () => {
          holderPid = Number(((await redis.get(lease)) ?? '').split(':')[1]);
          return holderPid > 0;
        },
        { timeoutMs: 30_000, what: "the wall's partition to be held" },
      );

      // Scans, two at a time, until stopped; each with the time it began and its status.
      const answers: { at: number; ms: number; status: number }[] = [];
      let running = true;
      const lanes = [0, 1].map(async () => {
        while (running) {
          const at = performance.now();
          const res = await fetch(`${base}/api/v1/sort-box-items`, {
            method: 'POST',
            headers: { ...json, authorization: auth, 'idempotency-key': randomUUID() },
            body,
            signal: AbortSignal.timeout(20_000),
          }).catch(() => null);
          await res?.text();
          answers.push({ at, ms: performance.now() - at, status: res?.status ?? 0 });
        }
      });
      await waitFor(() => answers.filter((a) => a.status === 200).length >= 5, { timeoutMs: 30_000, what: 'scans before the kill' });
      const killedAt = performance.now();
      process.kill(holderPid, 'SIGKILL');
      // Answered 200 again: a scan begun after the kill and answered 200.
      await waitFor(() => answers.some((a) => a.at > killedAt && a.status === 200), { timeoutMs: 30_000, intervalMs: 20, what: 'a scan of the wall answered 200 after the kill' });
      const firstOk = answers.find((a) => a.at > killedAt && a.status === 200)!;
      const backAfterMs = Math.round(firstOk.at + firstOk.ms - killedAt);
      running = false;
      await Promise.all(lanes);
      const handOver = lines.find((l) => l.msg?.startsWith(`the partitions of sorting process ${holderPid} handed over`));
      process.stdout.write(`\ndead holder: scans of its wall answered 200 again ${backAfterMs} ms after the SIGKILL; ${JSON.stringify(handOver)}\n`);
      expect(handOver).toBeDefined();
      expect(backAfterMs).toBeLessThanOrEqual(HANDED_OVER_WITHIN_MS);
      // Meanwhile every scan was answered: 200, or 503/504 (the one in hand of the dead process).
      expect(answers.filter((a) => ![200, 503, 504].includes(a.status))).toEqual([]);

      // Wait for the supervisor to have restarted the killed process, so every role runs.
      await waitFor(() => lines.filter((l) => l.msg === 'command workers started').length >= 3, { timeoutMs: 120_000, intervalMs: 200, what: 'the killed sorting process restarted' });

      // PostgreSQL stopped under 20 scan+confirm pairs a second: what every process logs meanwhile.
      const statuses = new Map<number, number>();
      let sent = 0;
      const pairs = setInterval(() => {
        const path = sent++ % 2 === 0 ? '/api/v1/sort-box-items' : '/api/v1/sort-box-items/1/confirm';
        void fetch(`${base}${path}`, {
          method: path.endsWith('confirm') ? 'PATCH' : 'POST',
          headers: { ...json, authorization: auth, 'idempotency-key': randomUUID() },
          body: path.endsWith('confirm') ? '{}' : body,
          signal: AbortSignal.timeout(20_000),
        })
          .then(async (res) => {
            await res.text();
            statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          })
          .catch(() => statuses.set(0, (statuses.get(0) ?? 0) + 1));
      }, 25);
      const bytesBefore = bytes;
      const downAt = performance.now();
      await pg.kill();
      await waitFor(() => performance.now() > downAt + PG_OUTAGE_MS, { timeoutMs: PG_OUTAGE_MS + 5_000, intervalMs: 200, what: 'the outage to last' });
      const logged = bytes - bytesBefore;
      const outageMs = performance.now() - downAt;
      clearInterval(pairs);
      await pg.start();
      const perFiveMinutes = Math.round((logged / outageMs) * 300_000);
      process.stdout.write(
        `\nPostgreSQL outage: ${Math.round(outageMs)} ms under ${sent} requests (${Math.round(sent / (outageMs / 1000) / 2)} pairs/s): ${logged} bytes logged by every process; scaled to 5 minutes: ${perFiveMinutes} bytes; answers ${JSON.stringify(Object.fromEntries(statuses))}\n`,
      );
      expect(perFiveMinutes).toBeLessThan(LOG_PER_5_MINUTES);
      // The floor works again.
      await waitFor(
        async () => (await fetch(`${base}/api/v1/sort-box-items`, { method: 'POST', headers: { ...json, authorization: auth }, body }).then((r) => r.status)) === 200,
        { timeoutMs: 60_000, intervalMs: 250, what: 'a scan answered 200 after PostgreSQL is back' },
      );

      // One Ctrl-C: the terminal signals the process group, and npm passes its own copy on to the supervisor.
      const stopAt = lines.length;
      process.kill(-supervisor.pid!, 'SIGINT');
      process.kill(supervisor.pid!, 'SIGINT');
      await waitFor(() => exited, { timeoutMs: 90_000, intervalMs: 100, what: 'the supervisor to stop every process and exit' });
      const after = lines.slice(stopAt);
      expect(after.some((l) => /second signal/.test(l.msg ?? ''))).toBe(false);
      expect(after.some((l) => l.msg === 'every process stopped')).toBe(true);
      // Every role's process shut down by itself, in order (the API first, then sorting, then the pipeline).
      const done = after.filter((l) => l.msg === 'shut down complete').map((l) => l.role ?? '');
      expect(done.filter((r) => r === 'api')).toHaveLength(1);
      expect(done.filter((r) => r === 'worker:sorting')).toHaveLength(2);
      expect(done.filter((r) => r.startsWith('worker:outbox'))).toHaveLength(1);
      const order = ['api', 'worker:sorting', 'worker:outbox'].map((r) => after.findIndex((l) => l.msg === 'shut down complete' && (l.role ?? '').startsWith(r)));
      expect([...order].sort((a, b) => a - b)).toEqual(order);
      expect(after.some((l) => /did not stop within/.test(l.msg ?? ''))).toBe(false);
    } catch (err) {
      throw failure(err);
    }
  });
});
