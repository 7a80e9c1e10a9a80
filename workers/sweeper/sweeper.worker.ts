import type { Runtime } from '../../shared/runtime/runtime';
import { createCommandBus } from '../../shared/queue/queue-module';
import { sweepOnce } from './sweep.use-case';

/**
 * Worker kind `sweeper`: ends sessions idle past SESSION_IDLE_TIMEOUT_MS (server-side, docs/api.md §6)
 * by sending each an `session.expire` command through its wall's queue, so expiry is ordered with
 * the wall's other commands; and forgets applied-command and idempotency records after a day.
 * Several sweepers may run: a duplicate expire finds the session ended and does nothing.
 */
export async function startSweeperWorker(runtime: Runtime): Promise<void> {
  const { config, log, orm } = runtime;
  const commands = createCommandBus(runtime.queueSettings, log);
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;
  const timer = setInterval(() => {
    running = running.then(() =>
      stopped ? undefined : sweepOnce(orm.em.fork(), commands, log).catch((err) => log.error({ err }, 'session sweep failed')),
    );
  }, config.SESSION_SWEEP_INTERVAL_MS);
  log.info({ intervalMs: config.SESSION_SWEEP_INTERVAL_MS, idleTimeoutMs: config.SESSION_IDLE_TIMEOUT_MS }, 'session sweeper started');
  runtime.onClose('session sweeper', async () => {
    stopped = true;
    clearInterval(timer);
    await running;
    await commands.close();
  });
}
