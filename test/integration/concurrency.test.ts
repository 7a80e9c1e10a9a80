import { createServer, type Server } from 'node:http';
import { startTestApi, type TestApi } from '../support/test-api';
import { SEED, runLoadAndCheck } from '../support/load-scenario';
import { spawnWorkerProcess, stopWorkerProcess, waitUntilReady, workerOutput, type WorkerProcess } from '../support/worker-process';

/*
 * Correctness under load ("Sorting workflow", part 5). The API runs in-process; the commands are
 * applied by TWO separate `sorting` worker processes competing for the same partition queues.
 * Eighteen sorters on three walls of one warehouse scan, confirm, cancel and release at once,
 * for fewer units than they scan, so walls race for the same orders and slots run out. Afterwards
 * the database must tell a consistent story, and each wall's commands must have been applied one
 * at a time in arrival order (test/support/load-scenario.ts; the same on a Redis Cluster in
 * redis-cluster.test.ts).
 */

jest.setTimeout(120_000);
// On a busy 2-core machine (the whole suite runs beside this) a command can wait several seconds
// behind the others of its wall; a timeout would be a capacity problem, not the one tested here.
process.env.COMMAND_TIMEOUT_MS = '30000';

describe('sorting under load: 18 sorters, 3 walls, 2 worker processes', () => {
  let api: TestApi;
  let server: Server;
  const workers: WorkerProcess[] = [];

  beforeAll(async () => {
    api = await startTestApi(); // no in-process workers: the two processes below apply every command
    workers.push(spawnWorkerProcess('sorting worker A'), spawnWorkerProcess('sorting worker B'));
    server = createServer(api.app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      await Promise.all(workers.map((w) => waitUntilReady(w)));
    } catch (err) {
      throw new Error(`${(err as Error).message}\n${workerOutput(workers)}`);
    }
  });

  afterAll(async () => {
    await Promise.all(workers.map((w) => stopWorkerProcess(w)));
    await new Promise<void>((resolve) => server?.close(() => resolve()));
    await api?.close();
  });

  it('keeps every slot, order line and confirmed unit consistent, and applies each wall in arrival order', async () => {
    try {
      const figures = await runLoadAndCheck(api, server);
      process.stdout.write(`\nconcurrency figures: ${JSON.stringify(figures, null, 2)}\n`);
    } catch (err) {
      const e = err as Error;
      e.message = `${e.message}\n(LOAD_SEED=${SEED} repeats this run's floor and choices)\n${workerOutput(workers)}`;
      throw e;
    }
  });
});
