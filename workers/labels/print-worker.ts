import type { Runtime } from '../../shared/runtime/runtime';
import { startDueSender } from '../pipeline/due-sender';
import { claimPrintJobs, deleteOldPrintJobs, nextPrintDue } from './print.queries';
import { PRINT_CONNECT_TIMEOUT_MS, PRINT_WRITE_TIMEOUT_MS, TOO_LATE, UNKNOWN_OUTCOME, sendPrintJob } from './print-sender';

/** Jobs under way at once per process: they wait on printers, not on the database. */
const CONCURRENCY = 8;
/** A claimed job is left alone this long; a sender that died before recording leaves it due again then. */
const LEASE_MS = PRINT_CONNECT_TIMEOUT_MS + PRINT_WRITE_TIMEOUT_MS + 15_000;
/**
 * The sender looks for due jobs at least this often: a print is expected within a moment of the scan.
 * The look is one probe of a partial index of the Queued jobs.
 */
export const PRINT_POLL_MS = 200;
/** Finished jobs (and the bytes they hold) are kept this long for GET /print-jobs/{id} and the printer's list. */
const PRINT_JOB_RETENTION_DAYS = 30;
const RETENTION_EVERY_MS = 3_600_000;

/**
 * The labels worker's print sender (docs/api.md §12): it works through every due print job (those of
 * POST /license-plates/{slot}/print, and those the `printing` consumer makes for walls that print by
 * themselves: `wake` after its batch committed), CONCURRENCY at a time per process, any number of
 * processes (each claims its own, skip locked; workers/pipeline/due-sender.ts). Retries and their
 * schedule are columns of print_job: nothing of a print is only in memory or Redis.
 */
export async function startPrinting(runtime: Runtime): Promise<{ wake(): void }> {
  const { config, log, workerSql } = runtime;
  const giveUpMs = Math.round(config.PRINT_JOB_GIVE_UP_MINUTES * 60_000);
  let nextRetention = Date.now() + 60_000;

  // Recording a label the printer took is tried until the database takes it: it is never written again instead.
  const keepRecording = async (record: () => Promise<unknown>): Promise<void> => {
    for (let wait = 500; ; wait = Math.min(wait * 2, 10_000)) {
      try {
        await record();
        return;
      } catch (err) {
        if (sender.stopped()) throw err;
        log.warn({ err }, 'could not record a sent print job; trying again (it is not sent again)');
        await new Promise((r) => setTimeout(r, wait));
      }
    }
  };

  const sender = startDueSender(runtime, {
    name: 'print sender',
    concurrency: CONCURRENCY,
    pollMs: PRINT_POLL_MS,
    nextDue: async () => (await nextPrintDue(workerSql, {}))[0]?.due_at ?? null,
    claim: (limit) => claimPrintJobs(workerSql, { limit, leaseMs: LEASE_MS, giveUpMs, unknown: UNKNOWN_OUTCOME, late: TOO_LATE }),
    send: (job) => sendPrintJob(workerSql, job, config, log, keepRecording),
    failed: (err, job) => log.warn({ err, printJobId: job.id }, 'could not record a print attempt; the job is tried again when its lease ends'),
    tick: async () => {
      if (Date.now() < nextRetention) return;
      nextRetention = Date.now() + RETENTION_EVERY_MS;
      const gone = await deleteOldPrintJobs(workerSql, { days: PRINT_JOB_RETENTION_DAYS, batch: 1000 });
      if (gone.length) log.info({ deleted: gone.length }, 'old print jobs deleted');
    },
  });
  log.info({ retryBaseMs: config.PRINT_RETRY_BASE_MS, retryMaxMs: config.PRINT_RETRY_MAX_MS, giveUpMinutes: config.PRINT_JOB_GIVE_UP_MINUTES }, 'print sender started');
  return { wake: sender.wake };
}
