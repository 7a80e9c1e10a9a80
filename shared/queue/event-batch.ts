import type { EntityManager } from '@mikro-orm/postgresql';
import type { WallEvent } from '../events/channels';
import type { Logger } from '../logging/logger';
import type { Runtime } from '../runtime/runtime';
import { failedJobRecorder } from './failed-job';
import { PartialJobFailure, startJobWorker, type JobHandlers } from './job-queue';
import { eventJobName, type EventConsumer } from './jobs';

async function answers(em: () => EntityManager): Promise<boolean> {
  try {
    await em().execute('select 1');
    return true;
  } catch {
    return false;
  }
}

/**
 * Applies the events of one consumer batch job (`<consumer>.batch`, jobs.ts) with `write`, all in one
 * go. If that fails while the database answers, the events are written one at a time, so one bad
 * event fails only itself: the others are written now, and the job is narrowed to the events that
 * failed (PartialJobFailure) and retried, so a final failure records only those in failed_job. If the
 * database does not answer (an outage), the batch is retried whole. `write` must be idempotent per
 * event id: a retried or re-relayed batch brings events already applied.
 */
export async function writeEventBatch(
  events: readonly WallEvent[],
  write: (events: readonly WallEvent[]) => Promise<unknown>,
  opts: { em: () => EntityManager; log: Logger; consumer: string },
): Promise<void> {
  try {
    await write(events);
    return;
  } catch (err) {
    if (events.length === 1 || !(await answers(opts.em))) throw err;
    opts.log.warn({ err, consumer: opts.consumer, events: events.length }, 'event batch failed; writing its events one at a time');
  }
  const left: WallEvent[] = [];
  let lastError: unknown;
  for (let i = 0; i < events.length; i++) {
    try {
      await write([events[i]]);
    } catch (err) {
      lastError = err;
      left.push(events[i]);
      // The database went away meanwhile: the rest waits for the retry.
      if (!(await answers(opts.em))) {
        left.push(...events.slice(i + 1));
        break;
      }
    }
  }
  if (left.length === 0) return;
  if (left.length === events.length) throw lastError;
  const first = left[0];
  throw new PartialJobFailure(
    `${left.length} of ${events.length} events not applied (first: ${first.id}, ${first.type}): ${(lastError as Error)?.message ?? String(lastError)}`,
    { events: left },
  );
}

type WriteEvents = (events: readonly WallEvent[]) => Promise<unknown>;

/** The handler of a consumer's batch jobs (`<consumer>.batch`): the batch through writeEventBatch with `write`. */
export function eventBatchHandler(consumer: EventConsumer, write: WriteEvents, opts: { em: () => EntityManager; log: Logger }) {
  return ({ events }: { events: unknown[] }): Promise<void> => writeEventBatch(events as WallEvent[], write, { ...opts, consumer });
}

/**
 * Starts the worker of one event consumer (EVENT_CONSUMERS, jobs.ts): its batch jobs written with
 * `write` (eventBatchHandler), `concurrency` at a time, final failures recorded in failed_job; closed
 * with the runtime.
 */
export async function startEventConsumer(
  runtime: Pick<Runtime, 'queueSettings' | 'log' | 'orm' | 'onClose'>,
  consumer: EventConsumer,
  write: WriteEvents,
  opts: { concurrency: number; name: string },
): Promise<void> {
  const { log, orm } = runtime;
  const em = () => orm.em.fork();
  const handlers = { [eventJobName(consumer)]: eventBatchHandler(consumer, write, { em, log }) } as JobHandlers;
  const worker = await startJobWorker(runtime.queueSettings, consumer, handlers, { log, recordFailure: failedJobRecorder(em), concurrency: opts.concurrency });
  log.info(`${opts.name} started`);
  runtime.onClose(opts.name, () => worker.close());
}
