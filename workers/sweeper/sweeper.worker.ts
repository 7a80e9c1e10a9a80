import type { Runtime } from '../../shared/runtime/runtime';
import { workerCommandClient } from '../../shared/commands/command-client';
import { EVENT_CONSUMER_NAMES } from '../event-consumers';
import { enforceRetention, retentionSettings } from './retention.use-case';
import { claimMaintenanceRun } from './sweep.queries';
import { sweepOnce } from './sweep.use-case';

/** The longest one sweep spends deleting old records; what is left waits for the next one. */
const RETENTION_BUDGET_MS = 10_000;

/**
 * Worker kind `sweeper`: every SESSION_SWEEP_INTERVAL_MS, ends sessions idle past
 * SESSION_IDLE_TIMEOUT_MS (server-side, docs/api.md §6) by sending each a `session.expire` command
 * through its wall's queue (ordered with the wall's other commands), tidies webhook attempts left
 * unrecorded, and deletes records past their retention (docs/operations.md "Retention"). The timer is
 * this process's own; PostgreSQL (maintenance_run) gives each interval to one sweeper however many run,
 * so nothing about it lives only in Redis: an empty Redis changes nothing here.
 */
export async function startSweeperWorker(runtime: Runtime): Promise<void> {
  const { config, log, workerSql } = runtime;
  // The process's one command client, closed with the runtime after this kind (workerCommandClient).
  const commands = workerCommandClient(runtime);
  const retention = retentionSettings(config);
  const consumers = EVENT_CONSUMER_NAMES;
  let stopped = false;
  let wake: (() => void) | null = null;
  const loop = (async () => {
    while (!stopped) {
      try {
        const [{ claimed }] = await claimMaintenanceRun(workerSql, { name: 'sweep', intervalMs: config.SESSION_SWEEP_INTERVAL_MS });
        if (claimed) {
          await sweepOnce(workerSql, commands, log);
          await enforceRetention(workerSql, retention, { consumers, budgetMs: Math.min(RETENTION_BUDGET_MS, config.SESSION_SWEEP_INTERVAL_MS / 2), log });
        }
      } catch (err) {
        log.warn({ err }, 'sweep failed; the next interval tries again');
      }
      if (!stopped) await new Promise<void>((resolve) => {
        const timer = setTimeout(done, config.SESSION_SWEEP_INTERVAL_MS);
        function done() {
          clearTimeout(timer);
          wake = null;
          resolve();
        }
        wake = done;
      });
    }
  })();
  log.info({ intervalMs: config.SESSION_SWEEP_INTERVAL_MS, idleTimeoutMs: config.SESSION_IDLE_TIMEOUT_MS }, 'session sweeper started');
  runtime.onClose('session sweeper', async () => {
    stopped = true;
    (wake as (() => void) | null)?.();
    await loop;
  });
}
