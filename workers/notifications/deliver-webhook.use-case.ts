import type { EntityManager } from '@mikro-orm/postgresql';
import { WebhookDelivery, WebhookSubscription } from '../../shared/db/entities';
import { PermanentDeliveryFailure, type DeliveryAttempt, type WebhookJob } from '../../shared/queue/notification-queue';
import { signWebhook } from '../../shared/webhooks/webhook-signature';
import { assertPublicTarget } from '../../shared/webhooks/webhook-target';
import { WEBHOOK_USER_AGENT } from '../../shared/webhooks/webhook-user-agent';

export const WEBHOOK_TIMEOUT_MS = 10_000;
const MAX_ERROR_LENGTH = 500;
/** What a delivery row says when its attempt's outcome could not be written (issue: no `pending` forever). */
export const UNRECORDED_OUTCOME = 'The outcome of this attempt was not recorded (the worker stopped or the database was unavailable); the event was retried.';

export interface DeliverOptions {
  allowPrivateTargets: boolean;
  timeoutMs?: number;
  now?: () => Date;
}

/**
 * POSTs one event to one subscription, signed per Standard Webhooks (docs/api.md §8), and records the
 * attempt in webhook_delivery: `pending` while the request is under way (a row left pending means
 * the worker died mid-request, or its outcome could not be written), then `succeeded` or `failed`.
 * The next attempt turns such a left-over `pending` row into `failed` (the sweeper does it for a last
 * attempt, see sweepOnce). Throws on failure so the queue retries;
 * a deleted or inactive subscription is a permanent failure. The subscription is read now, not at
 * enqueue time: a changed URL or deactivation applies to pending retries.
 */
export async function deliverWebhook(em: EntityManager, job: WebhookJob, attempt: DeliveryAttempt, opts: DeliverOptions): Promise<void> {
  const now = opts.now ?? (() => new Date());
  const sub = await em.findOne(WebhookSubscription, { id: job.subscriptionId, clientId: job.clientId });
  // Deleted: its deliveries went with it (on delete cascade), so there is nowhere to record this.
  if (!sub) throw new PermanentDeliveryFailure(`webhook subscription ${job.subscriptionId} no longer exists`);
  await em.execute(
    `update webhook_delivery set status = 'failed', error = ? where subscription_id = ? and event_id = ? and status = 'pending' and attempt < ?`,
    [UNRECORDED_OUTCOME, sub.id, job.event.id, attempt.attempt],
  );
  const row = em.create(WebhookDelivery, {
    clientId: job.clientId,
    subscriptionId: sub.id,
    eventId: job.event.id,
    eventType: job.event.type,
    attempt: attempt.attempt,
    status: 'pending',
    attemptedAt: now(),
  });
  await em.flush();

  const finish = async (outcome: { ok: boolean; responseStatus?: number; error?: string; durationMs?: number; retry: boolean }) => {
    row.status = outcome.ok ? 'succeeded' : 'failed';
    row.responseStatus = outcome.responseStatus ?? null;
    row.error = outcome.error ? outcome.error.slice(0, MAX_ERROR_LENGTH) : null;
    row.durationMs = outcome.durationMs ?? null;
    row.nextAttemptAt = !outcome.ok && outcome.retry && attempt.retryDelayMs !== null ? new Date(Date.now() + attempt.retryDelayMs) : null;
    await em.flush();
  };

  if (!sub.isActive) {
    await finish({ ok: false, retry: false, error: 'The subscription is inactive; the event was not sent.' });
    throw new PermanentDeliveryFailure(`webhook subscription ${sub.id} is inactive`);
  }
  try {
    await assertPublicTarget(sub.url, opts.allowPrivateTargets);
  } catch (err) {
    await finish({ ok: false, retry: true, error: `Target refused: ${(err as Error).message}` });
    throw err;
  }

  const body = JSON.stringify(job.event);
  const headers = { ...signWebhook(sub.secret, job.event.id, Math.floor(Date.now() / 1000), body), 'user-agent': WEBHOOK_USER_AGENT };
  const started = performance.now();
  let response: Response;
  try {
    response = await fetch(sub.url, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(opts.timeoutMs ?? WEBHOOK_TIMEOUT_MS) });
  } catch (err) {
    const e = err as Error;
    const timedOut = e.name === 'TimeoutError' || e.name === 'AbortError';
    const cause = (e as { cause?: Error }).cause?.message;
    await finish({
      ok: false,
      retry: true,
      durationMs: Math.round(performance.now() - started),
      error: timedOut ? `No answer within ${opts.timeoutMs ?? WEBHOOK_TIMEOUT_MS} ms` : `Request failed: ${e.message}${cause ? ` (${cause})` : ''}`,
    });
    throw err;
  }
  // The body is not needed; reading it frees the connection.
  await response.arrayBuffer().catch(() => undefined);
  const durationMs = Math.round(performance.now() - started);
  if (response.status >= 200 && response.status < 300) {
    await finish({ ok: true, retry: false, responseStatus: response.status, durationMs });
    return;
  }
  await finish({ ok: false, retry: true, responseStatus: response.status, durationMs, error: `The receiver answered HTTP ${response.status}` });
  throw new Error(`webhook receiver answered HTTP ${response.status}`);
}
