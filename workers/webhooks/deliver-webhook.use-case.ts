import type { SqlRunner } from '../../shared/db/named-sql';
import { toWallEvent } from '../../shared/events/channels';
import { safeDecodeEvent } from '../../shared/events/event-schemas';
import { WEBHOOK_MAX_ATTEMPTS } from '../../shared/webhooks/webhook-attempts';
import { signWebhook } from '../../shared/webhooks/webhook-signature';
import { assertPublicTarget } from '../../shared/webhooks/webhook-target';
import { WEBHOOK_USER_AGENT } from '../../shared/webhooks/webhook-user-agent';
import { deliveryFailed, deliverySucceeded, type ClaimedDelivery } from './delivery.queries';

export const WEBHOOK_TIMEOUT_MS = 10_000;
const MAX_ERROR_LENGTH = 500;
/** What a delivery row says when its attempt's outcome could not be recorded (no `pending` forever). */
export const UNRECORDED_OUTCOME = 'The outcome of this attempt was not recorded (the worker stopped or the database was unavailable); the event was retried.';
export const INACTIVE = 'The subscription is inactive; the event was not sent.';

export interface DeliverOptions {
  allowPrivateTargets: boolean;
  retryBaseMs: number;
  timeoutMs?: number;
}

interface Outcome {
  ok: boolean;
  /** False: no later attempt can succeed (the subscription is inactive). */
  retry: boolean;
  responseStatus?: number;
  error?: string;
  durationMs?: number;
}

/** The wait after failed attempt `attempt` (1-based), or null after the last one. */
export function webhookRetryDelayMs(attempt: number, baseMs: number): number | null {
  return attempt >= WEBHOOK_MAX_ATTEMPTS ? null : Math.round(2 ** (attempt - 1) * baseMs);
}

/**
 * POSTs one claimed delivery (one event to one subscription), signed per Standard Webhooks (docs/api.md
 * §8), and records its outcome in one statement: the attempt's row `succeeded` (and the delivery done)
 * or `failed` with, unless it was the last attempt, the time of the next one (the delivery due again
 * then); after the last attempt the delivery is recorded in failed_job. An inactive subscription's
 * delivery ends at once (its attempt row says so). Never throws for the receiver's failures; a database failure while recording
 * leaves the attempt `pending` and the delivery leased: it is tried again when the lease ends, and that
 * attempt marks this one failed (UNRECORDED_OUTCOME).
 */
export async function deliverClaimed(db: SqlRunner, d: ClaimedDelivery, opts: DeliverOptions): Promise<Outcome> {
  const event = toWallEvent(d);
  const finish = async (outcome: Outcome): Promise<Outcome> => {
    if (outcome.ok) {
      await deliverySucceeded(db, {
        deliveryId: d.delivery_id,
        eventId: event.id,
        subscriptionId: d.subscription_id,
        responseStatus: outcome.responseStatus ?? 200,
        durationMs: outcome.durationMs ?? 0,
      });
      return outcome;
    }
    const delay = outcome.retry ? webhookRetryDelayMs(d.attempt, opts.retryBaseMs) : null;
    const error = (outcome.error ?? 'failed').slice(0, MAX_ERROR_LENGTH);
    await deliveryFailed(db, {
      deliveryId: d.delivery_id,
      eventId: event.id,
      subscriptionId: d.subscription_id,
      responseStatus: outcome.responseStatus ?? null,
      error,
      durationMs: outcome.durationMs ?? null,
      retryAt: delay === null ? null : new Date(Date.now() + delay),
      attempts: d.attempt,
      job: JSON.stringify({ subscriptionId: d.subscription_id, clientId: d.client_id, event }),
    });
    return outcome;
  };

  if (!d.is_active) return finish({ ok: false, retry: false, error: INACTIVE });
  // The payload is the event as stored, sent only if it matches its type's schema (shared/events/event-schemas.ts):
  // one that does not is recorded as failed, never sent.
  const decoded = safeDecodeEvent(event);
  if (!decoded.ok) return finish({ ok: false, retry: false, error: decoded.error.message });
  try {
    await assertPublicTarget(d.url, opts.allowPrivateTargets);
  } catch (err) {
    return finish({ ok: false, retry: true, error: `Target refused: ${(err as Error).message}` });
  }
  const timeoutMs = opts.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const body = JSON.stringify(event);
  const headers = { ...signWebhook(d.secret, event.id, Math.floor(Date.now() / 1000), body), 'user-agent': WEBHOOK_USER_AGENT };
  const started = performance.now();
  let response: Response;
  try {
    response = await fetch(d.url, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    const e = err as Error;
    const timedOut = e.name === 'TimeoutError' || e.name === 'AbortError';
    const cause = (e as { cause?: Error }).cause?.message;
    return finish({
      ok: false,
      retry: true,
      durationMs: Math.round(performance.now() - started),
      error: timedOut ? `No answer within ${timeoutMs} ms` : `Request failed: ${e.message}${cause ? ` (${cause})` : ''}`,
    });
  }
  // The body is not needed; reading it frees the connection.
  await response.arrayBuffer().catch(() => undefined);
  const durationMs = Math.round(performance.now() - started);
  if (response.status >= 200 && response.status < 300) return finish({ ok: true, retry: false, responseStatus: response.status, durationMs });
  return finish({ ok: false, retry: true, responseStatus: response.status, durationMs, error: `The receiver answered HTTP ${response.status}` });
}
