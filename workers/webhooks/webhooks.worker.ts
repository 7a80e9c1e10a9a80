import type { Runtime } from '../../shared/runtime/runtime';
import { startDueSender } from '../pipeline/due-sender';
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
 * Redis. Every attempt is a webhook_delivery row (named plain SQL on runtime.workerSql).
 */
export const webhooksKind: WorkerKindCode = {
  consumers: [{ name: 'webhooks', readsEvents: false, handle: async (batch, tx) => void (await scheduleDeliveries(tx, batch)) }],
  start: startWebhookSender,
};

/** The sender, woken by this process's consumer after each batch that scheduled deliveries (workers/pipeline/due-sender.ts). */
async function startWebhookSender(runtime: Runtime): Promise<KindStarted<unknown>> {
  const { config, log, workerSql } = runtime;
  const options = { allowPrivateTargets: config.WEBHOOK_ALLOW_PRIVATE_TARGETS, retryBaseMs: config.WEBHOOK_RETRY_BASE_MS };
  const sender = startDueSender(runtime, {
    name: 'webhook sender',
    concurrency: CONCURRENCY,
    pollMs: config.OUTBOX_POLL_MS,
    nextDue: async () => (await nextDueAt(workerSql, { maxAttempts: WEBHOOK_MAX_ATTEMPTS }))[0]?.due_at ?? null,
    claim: (limit) => claimDueDeliveries(workerSql, { limit, leaseMs: LEASE_MS, unrecorded: UNRECORDED_OUTCOME, inactive: INACTIVE, maxAttempts: WEBHOOK_MAX_ATTEMPTS }),
    send: (d) => deliverClaimed(workerSql, d, options),
    failed: (err, d) => log.warn({ err, eventId: d.event_id, subscriptionId: d.subscription_id }, 'could not record a webhook attempt; it is tried again when its lease ends'),
  });
  log.info({ allowPrivateTargets: config.WEBHOOK_ALLOW_PRIVATE_TARGETS, retryBaseMs: config.WEBHOOK_RETRY_BASE_MS }, 'webhook deliveries started');
  return { context: undefined, afterCommit: { webhooks: () => sender.wake() } };
}
