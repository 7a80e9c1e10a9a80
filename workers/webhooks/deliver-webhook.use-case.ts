import type { SqlRunner } from '../../shared/db/named-sql';
import { PermanentDeliveryFailure, type DeliveryAttempt, type WebhookJob } from '../../shared/queue/webhook-jobs';
import { signWebhook } from '../../shared/webhooks/webhook-signature';
import { assertPublicTarget } from '../../shared/webhooks/webhook-target';
import { WEBHOOK_USER_AGENT } from '../../shared/webhooks/webhook-user-agent';
import { beginDeliveryAttempt, finishDeliveryAttempt } from './delivery.queries';

export const WEBHOOK_TIMEOUT_MS = 10_000;
const MAX_ERROR_LENGTH = 500;
/** What a delivery row says when its attempt's outcome could not be written (issue: no `pending` forever). */
export const UNRECORDED_OUTCOME = 'The outcome of this attempt was not recorded (the worker stopped or the database was unavailable); the event was retried.';
const INACTIVE = 'The subscription is inactive; the event was not sent.';

export interface DeliverOptions {
  allowPrivateTargets: boolean;
  timeoutMs?: number;
  now?: () => Date;
}

interface Outcome {
  ok: boolean;
  retry: boolean;
  responseStatus?: number;
  error?: string;
  durationMs?: number;
}

/**
 * POSTs one event to one subscription, signed per Standard Webhooks (docs/api.md §8), and records the
 * attempt in webhook_delivery: `pending` while the request is under way (a row left pending means
 * the worker died mid-request, or its outcome could not be written), then `succeeded` or `failed`.
 * The next attempt turns such a left-over `pending` row into `failed` (the sweeper does it for a last
 * attempt, see sweepOnce). Throws on failure so the queue retries;
 * a deleted or inactive subscription is a permanent failure. Named plain SQL (delivery.queries.ts) on
 * `db` (runtime.ormSql), two statements per delivery, each its own transaction.
 */
export async function deliverWebhook(db: SqlRunner, job: WebhookJob, attempt: DeliveryAttempt, opts: DeliverOptions): Promise<void> {
  const now = opts.now ?? (() => new Date());
  const [sub] = await beginDeliveryAttempt(db, {
    subscriptionId: job.subscriptionId,
    clientId: job.clientId,
    eventId: job.event.id,
    eventType: job.event.type,
    attempt: attempt.attempt,
    unrecorded: UNRECORDED_OUTCOME,
    inactive: INACTIVE,
    now: now(),
  });
  // Deleted: its deliveries went with it (on delete cascade), so there is nowhere to record this.
  if (!sub) throw new PermanentDeliveryFailure(`webhook subscription ${job.subscriptionId} no longer exists`);
  if (!sub.is_active) throw new PermanentDeliveryFailure(`webhook subscription ${job.subscriptionId} is inactive`);

  const finish = async (outcome: Outcome) => {
    const retryAt = !outcome.ok && outcome.retry && attempt.retryDelayMs !== null ? new Date(Date.now() + attempt.retryDelayMs) : null;
    const status = outcome.ok ? 'succeeded' : 'failed';
    const error = outcome.error ? outcome.error.slice(0, MAX_ERROR_LENGTH) : null;
    await finishDeliveryAttempt(db, {
      deliveryId: sub.delivery_id,
      status,
      responseStatus: outcome.responseStatus ?? null,
      error,
      durationMs: outcome.durationMs ?? null,
      retryAt,
    });
  };

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
