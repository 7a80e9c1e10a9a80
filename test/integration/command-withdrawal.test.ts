import { Client as PgClient } from 'pg';
import { startTestApi, type TestApi } from '../support/test-api';
import { scanHeldInsideCommand, sorterConnected } from '../support/crash-scenario';
import { scan } from '../support/sorting-floor';
import { spawnWorkerProcess, stopWorkerProcess, workerOutput, type WorkerProcess } from '../support/worker-process';

/*
 * "The command was withdrawn and nothing was changed" (503) only when it is certain
 * that no worker started the command. A worker paused past the command timeout once got its job
 * removed under it (its lock had expired), the API said nothing changed, and the worker then
 * applied the scan. Now that case is 504 `command-timeout`, and a retry with the same
 * Idempotency-Key returns what really happened.
 */

jest.setTimeout(120_000);
// Longer than the job lock (5 s), so a paused worker's lock has expired when the API gives up.
process.env.COMMAND_TIMEOUT_MS = '8000';

async function itemCount(api: TestApi, clientId: number): Promise<number> {
  const [{ n }] = await api.runtime.orm.em.fork().execute<{ n: string }[]>('select count(*) as n from sort_box_item where client_id = ?', [clientId]);
  return Number(n);
}

describe('a command whose worker is paused past the timeout', () => {
  let api: TestApi;
  const workers: WorkerProcess[] = [];
  beforeAll(async () => {
    api = await startTestApi(); // commands are applied only by the worker process below
  });
  afterAll(async () => {
    for (const w of workers) if (!w.exited) w.child.kill('SIGCONT');
    await Promise.all(workers.map((w) => stopWorkerProcess(w)));
    await api?.close();
  });

  it('answers 504 "may still be applied" when the worker had started it, and the retry with the same key returns the scan', async () => {
    const worker = spawnWorkerProcess('sorting worker', { direct: true });
    workers.push(worker);
    const pg = new PgClient({ connectionString: api.runtime.config.DATABASE_URL });
    await pg.connect();
    try {
      const { floor, sorter } = await sorterConnected(api, worker, 2);
      // Hold the wall row: the worker takes the scan's job and waits inside the command...
      const key = { 'Idempotency-Key': 'scan-paused-worker-1' };
      const { answer } = await scanHeldInsideCommand(api, pg, floor.wallId, () => scan(api, sorter.auth, sorter.token, 'SKU-A', key));
      // ...then the worker is paused (its job lock is no longer renewed) and the row is free.
      worker.child.kill('SIGSTOP');
      await pg.query('rollback');

      const res = await answer;
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 504, code: 'command-timeout' });
      expect(res.body.detail).toMatch(/may still be applied/);

      // The worker resumes and finishes the scan it had started.
      worker.child.kill('SIGCONT');
      const retry = await scan(api, sorter.auth, sorter.token, 'SKU-A', key);
      expect({ status: retry.status, code: retry.body.code }).toEqual({ status: 200, code: undefined });
      expect(retry.body).toMatchObject({ orderId: 1, sku: 'SKU-A', status: 'PendingConfirmation' });
      expect(await itemCount(api, floor.tenant.clientId)).toBe(1);
      await stopWorkerProcess(worker);
    } catch (err) {
      (err as Error).message += `\n${workerOutput(workers)}`;
      throw err;
    } finally {
      await pg.end();
    }
  });

  it('answers 503 "withdrawn, nothing was changed" when no worker had taken it, and it is never applied', async () => {
    const worker = spawnWorkerProcess('idle sorting worker', { direct: true });
    workers.push(worker);
    try {
      const { floor, sorter } = await sorterConnected(api, worker, 2);

      worker.child.kill('SIGSTOP');
      const res = await scan(api, sorter.auth, sorter.token, 'SKU-A', { 'Idempotency-Key': 'scan-paused-worker-2' });
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 503, code: 'service-unavailable' });
      expect(res.body.detail).toMatch(/withdrawn and nothing was changed/);
      expect(res.headers['retry-after']).toMatch(/^\d+$/);

      // Commands of a wall run in order: once a later scan is answered, the withdrawn one would have run.
      worker.child.kill('SIGCONT');
      const later = await scan(api, sorter.auth, sorter.token, 'SKU-A', { 'Idempotency-Key': 'scan-paused-worker-3' });
      expect(later.status).toBe(200);
      expect(await itemCount(api, floor.tenant.clientId)).toBe(1);
    } catch (err) {
      (err as Error).message += `\n${workerOutput(workers)}`;
      throw err;
    }
  });
});
