import { query } from '../../shared/db/named-sql';

/* The statements of one webhook delivery (workers/webhooks/deliver-webhook.use-case.ts). */

export interface BeginDeliveryParams {
  subscriptionId: number;
  clientId: number;
  eventId: string;
  eventType: string;
  attempt: number;
  /** The error a left-over `pending` row of an earlier attempt gets. */
  unrecorded: string;
  /** The error of this attempt's row when the subscription is inactive. */
  inactive: string;
  now: Date;
}

/*
 * One round trip before the request: read the subscription (as it is now, not at enqueue time: a
 * changed URL or deactivation applies to pending retries), turn this event's left-over `pending` rows of
 * earlier attempts into `failed`, and write this attempt's row: `pending`, or `failed` at once when the
 * subscription is inactive. No row when the subscription is gone.
 */
export const beginDeliveryAttempt = query<BeginDeliveryParams, { url: string; secret: string; is_active: boolean; delivery_id: string }>(
  'webhook-delivery-begin',
  `
with sub as (
  select id, url, secret, is_active from webhook_subscription where id = :subscriptionId::int and client_id = :clientId::int
), stale as (
  update webhook_delivery d set status = 'failed', error = :unrecorded::text
    from sub where d.subscription_id = sub.id and d.event_id = :eventId::uuid and d.status = 'pending' and d.attempt < :attempt::int
), attempt as (
  insert into webhook_delivery (client_id, subscription_id, event_id, event_type, attempt, status, error, attempted_at)
  select :clientId::int, sub.id, :eventId::uuid, :eventType::text, :attempt::int,
         case when sub.is_active then 'pending' else 'failed' end, case when sub.is_active then null else :inactive::text end, :now::timestamptz
    from sub
  returning id
)
select sub.url, sub.secret, sub.is_active, (select id from attempt) as delivery_id from sub`,
);

/** The attempt's outcome: `succeeded` or `failed`, with what the receiver answered, and when the queue retries. */
export const finishDeliveryAttempt = query<{
  deliveryId: string;
  status: 'succeeded' | 'failed';
  responseStatus: number | null;
  error: string | null;
  durationMs: number | null;
  retryAt: Date | null;
}>(
  'webhook-delivery-finish',
  `update webhook_delivery set status = :status::text, response_status = :responseStatus::int, error = :error::text,
       duration_ms = :durationMs::int, next_attempt_at = :retryAt::timestamptz
 where id = :deliveryId::bigint`,
);
