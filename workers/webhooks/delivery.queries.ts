import { query } from '../../shared/db/named-sql';
import type { OutboxEventRow } from '../../shared/events/channels';
import { INTERNAL_EVENT_TYPES } from '../../shared/events/event-types';

/* The webhook consumer's statement and the statements of each delivery (workers/webhooks/). */

/*
 * The consumer's batch: one pending delivery per public relayed event in (:after, :through] and active
 * subscription of its client that takes its type, due now; the webhook senders of every process are
 * notified at the commit. In the transaction that moves the consumer's position: every delivery is
 * written once, and from then on it is PostgreSQL's until it succeeds or gives up.
 */
export const scheduleDeliveries = query<{ after: string; through: string }, { scheduled: number }>('webhook-schedule', `
with scheduled as (
  insert into webhook_pending (event_id, subscription_id, client_id)
  select o.event_id, s.id, o.client_id
    from outbox_event o
    join webhook_subscription s on s.client_id = o.client_id and s.is_active and ('*' = any(s.events) or o.type = any(s.events))
   where o.id > :after::bigint and o.id <= :through::bigint
     and o.type <> all(array[${INTERNAL_EVENT_TYPES.map((t) => `'${t}'`).join(', ')}]::text[])
  on conflict do nothing
  returning 1
)
select (select count(*) from scheduled)::int as scheduled`);

export interface ClaimedDelivery extends OutboxEventRow {
  subscription_id: number;
  /** This attempt's number (1 for the first). */
  attempt: number;
  url: string;
  secret: string;
  is_active: boolean;
  /** This attempt's webhook_delivery row (`failed` at once when the subscription is inactive). */
  delivery_id: string;
}

/*
 * Claims up to :limit due deliveries with attempts left (skip locked: other senders take others) for one
 * attempt each (a delivery whose last attempt was left unrecorded is the sweeper's, giveUpAbandoned):
 * counts the attempt, leases the row for :leaseMs (a sender that dies mid-request leaves it due again
 * after that), turns left-over `pending` attempt rows of these deliveries into `failed` (their outcome
 * was never recorded), and writes this attempt's `pending` row. Reads the subscription as it is now (a
 * changed URL or a deactivation applies to retries; an inactive one's attempt is `failed` at once) and
 * the event from the outbox. One round trip.
 */
export const claimDueDeliveries = query<{ limit: number; leaseMs: number; unrecorded: string; inactive: string; maxAttempts: number }, ClaimedDelivery>('webhook-claim', `
with due as (
  select p.event_id, p.subscription_id from webhook_pending p
   where p.due_at <= now() and p.attempts < :maxAttempts::int order by p.due_at limit :limit::int for update skip locked
), claimed as (
  update webhook_pending p set attempts = p.attempts + 1, due_at = now() + make_interval(secs => :leaseMs::int / 1000.0)
    from due where p.event_id = due.event_id and p.subscription_id = due.subscription_id
  returning p.event_id, p.subscription_id, p.client_id, p.attempts
), stale as (
  update webhook_delivery d set status = 'failed', error = :unrecorded::text
    from claimed c where d.subscription_id = c.subscription_id and d.event_id = c.event_id and d.status = 'pending' and d.attempt < c.attempts
), orphan as (
  -- The event is gone from the outbox (the retention keeps events with pending deliveries: not expected).
  delete from webhook_pending p using claimed c
   where p.event_id = c.event_id and p.subscription_id = c.subscription_id
     and not exists (select 1 from outbox_event o where o.event_id = c.event_id)
), attempt as (
  insert into webhook_delivery (client_id, subscription_id, event_id, event_type, attempt, status, error, attempted_at)
  select c.client_id, c.subscription_id, c.event_id, o.type, c.attempts,
         case when s.is_active then 'pending' else 'failed' end, case when s.is_active then null else :inactive::text end, now()
    from claimed c
    join webhook_subscription s on s.id = c.subscription_id
    join outbox_event o on o.event_id = c.event_id
  returning id, event_id, subscription_id
)
select c.subscription_id, c.attempts as attempt, s.url, s.secret, s.is_active, a.id::text as delivery_id,
       o.event_id, o.type, o.occurred_at, o.client_id, o.wall_id, o.data
  from claimed c
  join webhook_subscription s on s.id = c.subscription_id
  join outbox_event o on o.event_id = c.event_id
  left join attempt a on a.event_id = c.event_id and a.subscription_id = c.subscription_id`);

/** When the next delivery falls due, for the sender's sleep (null: none). */
export const nextDueAt = query<{ maxAttempts: number }, { due_at: Date | null }>(
  'webhook-next-due',
  `select min(due_at) as due_at from webhook_pending where attempts < :maxAttempts::int`,
);

/** A succeeded attempt: its row, and the delivery is done. */
export const deliverySucceeded = query<{ deliveryId: string; eventId: string; subscriptionId: number; responseStatus: number; durationMs: number }>(
  'webhook-succeeded',
  `
with attempt as (
  update webhook_delivery set status = 'succeeded', response_status = :responseStatus::int, error = null, duration_ms = :durationMs::int, next_attempt_at = null
   where id = :deliveryId::bigint
)
delete from webhook_pending where event_id = :eventId::uuid and subscription_id = :subscriptionId::int`,
);

/*
 * A failed attempt: its row (with the next attempt's time when there is one), and the delivery either
 * due again at :retryAt or, after its last attempt (:retryAt null), given up: removed and recorded in
 * failed_job (queue `webhooks`, job id `webhook_<event>_<subscription>`).
 */
export const deliveryFailed = query<{
  deliveryId: string;
  eventId: string;
  subscriptionId: number;
  responseStatus: number | null;
  error: string;
  durationMs: number | null;
  retryAt: Date | null;
  attempts: number;
  job: string;
}>(
  'webhook-failed',
  `
with attempt as (
  update webhook_delivery set status = 'failed', response_status = :responseStatus::int, error = :error::text,
         duration_ms = :durationMs::int, next_attempt_at = :retryAt::timestamptz
   where id = :deliveryId::bigint
), again as (
  update webhook_pending set due_at = :retryAt::timestamptz
   where :retryAt::timestamptz is not null and event_id = :eventId::uuid and subscription_id = :subscriptionId::int
), gone as (
  delete from webhook_pending
   where :retryAt::timestamptz is null and event_id = :eventId::uuid and subscription_id = :subscriptionId::int
  returning client_id
)
insert into failed_job (queue, job_name, job_id, data, error, attempts)
select 'webhooks', 'webhook.deliver', 'webhook_' || :eventId::text || '_' || :subscriptionId::text, :job::jsonb, :error::text, :attempts::int from gone
on conflict (queue, job_id) do update set error = excluded.error, attempts = excluded.attempts, failed_at = now()`,
);
