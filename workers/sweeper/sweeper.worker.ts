import type { Runtime } from '../../shared/runtime/runtime';
import { failedJobRecorder } from '../../shared/queue/failed-job';
import { createJobQueue, startJobWorker } from '../../shared/queue/job-queue';
import { createCommandClient } from '../../shared/commands/command-client';
import { sweepOnce } from './sweep.use-case';

/**
 * Worker kind `sweeper`: ends sessions idle past SESSION_IDLE_TIMEOUT_MS (server-side, docs/api.md §6)
 * by sending each an `session.expire` command through its wall's queue, so expiry is ordered with
 * the wall's other commands; and forgets applied-command and idempotency records after a day.
 * The timer is a BullMQ job scheduler (`sessions.sweep` every SESSION_SWEEP_INTERVAL_MS): every sweeper
 * process upserts the same scheduler, and each interval's one job goes to one of them.
 */
export async function startSweeperWorker(runtime: Runtime): Promise<void> {
  const { config, log, orm } = runtime;
  const commands = createCommandClient(runtime.queueSettings, log);
  const jobs = createJobQueue(runtime.queueSettings, log);
  await jobs.upsertSchedulers({ sessionSweepMs: config.SESSION_SWEEP_INTERVAL_MS });
  const worker = await startJobWorker(
    runtime.queueSettings,
    'maintenance',
    { 'sessions.sweep': async () => void (await sweepOnce(orm.em.fork(), commands, log)) },
    { log, recordFailure: failedJobRecorder(() => orm.em.fork()) },
  );
  log.info({ intervalMs: config.SESSION_SWEEP_INTERVAL_MS, idleTimeoutMs: config.SESSION_IDLE_TIMEOUT_MS }, 'session sweeper started');
  runtime.onClose('session sweeper', async () => {
    await worker.close();
    await jobs.close();
    await commands.close();
  });
}
