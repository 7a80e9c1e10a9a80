import type { Runtime } from '../../shared/runtime/runtime';
import { isDependencyOutage } from '../../shared/errors/outage';
import { foldedWarning } from '../../shared/logging/logger';
import { localWaiter } from '../pipeline/notifications';
import type { KindStarted, WorkerKindCode } from '../pipeline/worker-kind';
import { WEBHOOK_MAX_ATTEMPTS } from '../../shared/webhooks/webhook-attempts';
import { INACTIVE, UNRECORDED_OUTCOME, WEBHOOK_TIMEOUT_MS, deliverClaimed } from './deliver-webhook.use-case';
import { claimDueDeliveries, nextDueAt, scheduleDeliveries } from './delivery.queries';

/** Deliveries under way at once per process: they wait on receivers, not on the database. */
const CONCURRENCY = 16;
/** A claimed delivery is left alone this long; a sender that died mid-request leaves it due again then. */
const LEASE_MS = WEBHOOK_TIMEOUT_MS + 50_000;

/**
 * Worker kind `webhooks` (docs/api.md §8): the consumer `webhooks` turns each batch of relayed events
 * into pending deliveries (webhook_pending, in the transaction that moves its position), and the sender
 * works through the due ones, CONCURRENCY at a time per process, any number of processes: each claims
 * its own (skip locked). Retries and their schedule live in PostgreSQL; nothing of a delivery is only in
 * Redis. Every attempt is a webhook_delivery row (named plain SQL on runtime.ormSql).
 */
export const webhooksKind: WorkerKindCode = {
  consumers: [{ name: 'webhooks', readsEvents: false, handle: async (batch, tx) => void (await scheduleDeliveries(tx, batch)) }],
  start: startWebhookSender,
};

/** The sender, woken by this process's consumer after each batch that scheduled deliveries. */
async function startWebhookSender(runtime: Runtime): Promise<KindStarted<unknown>> {
  const { config, log, ormSql } = runtime;
  // PostgreSQL away: expected, one line per interval without a stack; anything else in full.
  const outage = foldedWarning(log, 'webhook sender waits for the database');
  // Woken by this process's consumer when it schedules deliveries, and by its own timer (the next due
  // delivery, or OUTBOX_POLL_MS): no LISTEN, which PostgreSQL would wake at every commit of the floor.
  const waiter = localWaiter();
  const options = { allowPrivateTargets: config.WEBHOOK_ALLOW_PRIVATE_TARGETS, retryBaseMs: config.WEBHOOK_RETRY_BASE_MS };
  let stopped = false;
  let inFlight = 0;
  const running = new Set<Promise<unknown>>();
  const sender = (async () => {
    while (!stopped) {
      const free = CONCURRENCY - inFlight;
      let waitMs = config.OUTBOX_POLL_MS;
      try {
        if (free > 0) {
          const claimed = await claimDueDeliveries(ormSql, { limit: free, leaseMs: LEASE_MS, unrecorded: UNRECORDED_OUTCOME, inactive: INACTIVE, maxAttempts: WEBHOOK_MAX_ATTEMPTS });
          for (const d of claimed) {
            inFlight++;
            const p = deliverClaimed(ormSql, d, options)
              .catch((err) => log.warn({ err, eventId: d.event_id, subscriptionId: d.subscription_id }, 'could not record a webhook attempt; it is tried again when its lease ends'))
              .finally(() => {
                inFlight--;
                running.delete(p);
                // A sender that was full looks for more at once.
                if (inFlight === CONCURRENCY - 1) waiter.wake();
              });
            running.add(p);
          }
          if (claimed.length === free) continue;
          const [{ due_at }] = await nextDueAt(ormSql, { maxAttempts: WEBHOOK_MAX_ATTEMPTS });
          if (due_at) waitMs = Math.max(0, Math.min(waitMs, new Date(due_at).getTime() - Date.now()));
        }
      } catch (err) {
        if (isDependencyOutage(err)) outage(err as Error);
        else log.warn({ err }, 'webhook sender could not read its deliveries; retrying');
        waitMs = Math.max(waitMs, 1000);
      }
      if (!stopped) await waiter.wait(waitMs);
    }
  })();
  log.info({ allowPrivateTargets: config.WEBHOOK_ALLOW_PRIVATE_TARGETS, retryBaseMs: config.WEBHOOK_RETRY_BASE_MS }, 'webhook deliveries started');
  runtime.onClose('webhook deliveries', async () => {
    stopped = true;
    waiter.wake();
    await sender;
    await Promise.all(running);
  });
  return { context: undefined, afterCommit: { webhooks: () => waiter.wake() } };
}
