import { isDependencyOutage } from '../../shared/errors/outage';
import { foldedWarning } from '../../shared/logging/logger';
import type { Runtime } from '../../shared/runtime/runtime';
import { localWaiter } from './notifications';

/**
 * A sender of rows that fall due in PostgreSQL (print jobs, webhook deliveries): what it claims and
 * sends. Each claim leases its rows (their due time moved past the send's longest run), so any number
 * of processes may run one: each claims its own (skip locked), and a row whose sender died is due
 * again when its lease ends. Retries and their schedule are the rows' columns: nothing is only in memory.
 */
export interface DueRows<T> {
  /** Its name in the log and among the runtime's closers. */
  name: string;
  /** Sends under way at once per process: they wait on printers or receivers, not on the database. */
  concurrency: number;
  /** The longest wait between two looks (a row may fall due meanwhile: a retry, another process's row). */
  pollMs: number;
  /** When the next row falls due (null: none): one probe of an index, all an idle look costs. */
  nextDue(): Promise<Date | null>;
  /** Claims up to `limit` due rows for this process. */
  claim(limit: number): Promise<readonly T[]>;
  /** Sends one claimed row and records its outcome; a failure is logged (`failed`), the row due again when its lease ends. */
  send(row: T): Promise<unknown>;
  failed(err: unknown, row: T): void;
  /** Work of the sender's own at each look (the print jobs' retention). */
  tick?(): Promise<void>;
}

/**
 * Runs a sender until the runtime closes: a look at once when woken (`wake`: a consumer's batch made
 * rows; a send ended while all were busy), else every `pollMs` or when the next row falls due, whichever
 * is first; no LISTEN (PostgreSQL would wake this process at every commit of the floor). While the
 * database does not answer it looks again after 1 s, doubling, at most 5 s (someone awaits a label).
 * Closing waits for the sends under way (`stopped()` is true from then on: a send that keeps trying
 * something gives up).
 */
export function startDueSender<T>(runtime: Pick<Runtime, 'log' | 'onClose'>, rows: DueRows<T>): { wake(): void; stopped(): boolean } {
  const { log } = runtime;
  const waiter = localWaiter();
  // PostgreSQL away: expected, one line per interval without a stack; anything else in full.
  const outageWarning = foldedWarning(log, `${rows.name} waits for the database`);
  let stopped = false;
  let inFlight = 0;
  let outage = 0;
  const running = new Set<Promise<unknown>>();
  const loop = (async () => {
    while (!stopped) {
      let waitMs = rows.pollMs;
      try {
        await rows.tick?.();
        const free = rows.concurrency - inFlight;
        let claimed = 0;
        if (free > 0) {
          const due = await rows.nextDue();
          const dueIn = due ? new Date(due).getTime() - Date.now() : null;
          if (dueIn !== null && dueIn <= 0) {
            const batch = await rows.claim(free);
            claimed = batch.length;
            for (const row of batch) {
              inFlight++;
              const p = rows
                .send(row)
                .catch((err) => rows.failed(err, row))
                .finally(() => {
                  inFlight--;
                  running.delete(p);
                  // A sender that was full looks for more at once.
                  if (inFlight === rows.concurrency - 1) waiter.wake();
                });
              running.add(p);
            }
          } else if (dueIn !== null) waitMs = Math.min(waitMs, dueIn);
        }
        if (outage) log.info(`${rows.name} reaches the database again`);
        outage = 0;
        // Claimed some: look again at once (more may be due, or the look says when the next is).
        if (claimed > 0) continue;
      } catch (err) {
        outage++;
        if (isDependencyOutage(err)) outageWarning(err as Error);
        else log.warn({ err }, `${rows.name} could not read its rows; retrying`);
        waitMs = Math.min(1000 * 2 ** Math.min(outage - 1, 3), 5_000);
      }
      if (!stopped) await waiter.wait(waitMs);
    }
  })();
  runtime.onClose(rows.name, async () => {
    stopped = true;
    waiter.wake();
    await loop;
    await Promise.all(running);
  });
  return { wake: () => waiter.wake(), stopped: () => stopped };
}
