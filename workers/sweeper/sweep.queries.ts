import { query } from '../../shared/db/named-sql';

/* The sweeper's statements (workers/sweeper/sweep.use-case.ts, retention.use-case.ts). */

/*
 * Takes the periodic task :name for this interval: true for one process per interval however many
 * sweepers run (the first whose timer fires once the last run is :intervalMs old, less a tenth for the
 * timers' jitter). Nothing in Redis: an empty Redis changes nothing here.
 */
export const claimMaintenanceRun = query<{ name: string; intervalMs: number }, { claimed: boolean }>('maintenance-claim', `
with claimed as (
  insert into maintenance_run (name, last_run_at) values (:name::text, now())
  on conflict (name) do update set last_run_at = now()
   where maintenance_run.last_run_at <= now() - make_interval(secs => :intervalMs::int * 0.9 / 1000.0)
  returning 1
)
select exists (select 1 from claimed) as claimed`);

/** Connected sessions idle past their expiry, oldest first. */
export const dueSessions = query<{ limit: number }, { id: number; client_id: number; wall_id: number }>(
  'sweep-due-sessions',
  `select id, client_id, wall_id from sorter_session where status = 'Connected' and expires_at <= now() order by expires_at limit :limit::int`,
);

/** Webhook attempts still `pending` after :minutes minutes (an attempt takes at most 10 s): never finished. */
export const failAbandonedAttempts = query<{ minutes: number; error: string }>(
  'sweep-abandoned-attempts',
  `update webhook_delivery set status = 'failed', error = :error::text
    where status = 'pending' and attempted_at < now() - make_interval(mins => :minutes::int)`,
);

/*
 * Deliveries whose last attempt was claimed but never recorded, once its lease is over: given up like
 * a last attempt that failed (removed, recorded in failed_job with the event).
 */
export const giveUpAbandonedDeliveries = query<{ maxAttempts: number; error: string }, { n: number }>('sweep-abandoned-deliveries', `
with gone as (
  delete from webhook_pending p where p.attempts >= :maxAttempts::int and p.due_at <= now()
  returning p.event_id, p.subscription_id, p.client_id, p.attempts
), recorded as (
  insert into failed_job (queue, job_name, job_id, data, error, attempts)
  select 'webhooks', 'webhook.deliver', 'webhook_' || g.event_id || '_' || g.subscription_id,
         jsonb_build_object('subscriptionId', g.subscription_id, 'clientId', g.client_id,
           'event', (select jsonb_build_object('id', o.event_id, 'type', o.type, 'occurredAt', o.occurred_at, 'clientId', o.client_id, 'wallId', o.wall_id, 'data', o.data)
                       from outbox_event o where o.event_id = g.event_id)),
         :error::text, g.attempts
    from gone g
  on conflict (queue, job_id) do update set error = excluded.error, attempts = excluded.attempts, failed_at = now()
)
select count(*)::int as n from gone`);

/** The clients (the retention of their sort box items goes client by client, along their index). */
export const clientIds = query<Record<string, never>, { id: number }>('sweep-client-ids', 'select id from client order by id');

/** Raises the horizon of a kind of record: records older than it may have been deleted. */
export const raiseRetentionHorizon = query<{ kind: string; before: Date }>(
  'retention-horizon-raise',
  `insert into retention_horizon (kind, deleted_before) values (:kind::text, :before::timestamptz)
   on conflict (kind) do update set deleted_before = greatest(retention_horizon.deleted_before, excluded.deleted_before)`,
);

type Deleted = { n: number; newest: Date | null };

/*
 * Each retention statement deletes at most :batch rows older than :cutoff, found along an index that
 * starts with the oldest (per client or subscription where the index leads with it), and answers how
 * many it deleted and the newest instant among them: a statement stays short whatever the backlog.
 */

/*
 * Outbox events every consumer has passed (:consumers, their position at or after the event) and older
 * than :cutoff, with no webhook delivery still pending: taken oldest first along relay_seq, so a
 * statement reads at most :batch events however large the table.
 */
export const deleteOldOutboxEvents = query<{ cutoff: Date; batch: number; consumers: string[] }, Deleted>('retention-outbox', `
with passed as (select coalesce(min(position), 0) as position from outbox_consumer where name = any(:consumers::text[])),
oldest as (
  select o.id, o.event_id, o.occurred_at from outbox_event o
   where o.relay_seq <= (select position from passed) order by o.relay_seq limit :batch::int
), gone as (
  delete from outbox_event o using oldest d
   where o.id = d.id and d.occurred_at < :cutoff::timestamptz and not exists (select 1 from webhook_pending p where p.event_id = d.event_id)
  returning o.occurred_at
)
select count(*)::int as n, max(occurred_at) as newest from gone`);

/* Outbox events stored before relay_seq existed (relayed, without one), older than :cutoff. */
export const deleteOldUnstampedOutboxEvents = query<{ cutoff: Date; batch: number }, Deleted>('retention-outbox-unstamped', `
with gone as (
  delete from outbox_event where id in (
    select id from outbox_event where occurred_at < :cutoff::timestamptz and relay_seq is null and published_at is not null limit :batch::int)
  returning occurred_at
)
select count(*)::int as n, max(occurred_at) as newest from gone`);

/* A client's audit records older than :cutoff, oldest first along its (client_id, occurred_at) index. */
export const deleteOldAuditRecords = query<{ clientId: number; cutoff: Date; batch: number }, Deleted>('retention-audit', `
with gone as (
  delete from audit_log where id in (
    select id from audit_log where client_id = :clientId::int and occurred_at < :cutoff::timestamptz order by occurred_at, id limit :batch::int)
  returning occurred_at
)
select count(*)::int as n, max(occurred_at) as newest from gone`);

export const deleteOldCountedEvents = query<{ cutoff: Date; batch: number }, Deleted>('retention-counted-events', `
with gone as (
  delete from stats_counted_event where event_id in (select event_id from stats_counted_event where counted_at < :cutoff::timestamptz limit :batch::int)
  returning counted_at
)
select count(*)::int as n, max(counted_at) as newest from gone`);

/** The subscriptions (the retention of their delivery history goes subscription by subscription, along their index). */
export const subscriptionIds = query<Record<string, never>, { id: number }>('sweep-subscription-ids', 'select id from webhook_subscription order by id');

/* A subscription's finished attempts older than :cutoff, oldest first along its (subscription_id, attempted_at) index. */
export const deleteOldWebhookDeliveries = query<{ subscriptionId: number; cutoff: Date; batch: number }, Deleted>('retention-webhook-deliveries', `
with gone as (
  delete from webhook_delivery where id in (
    select id from webhook_delivery where subscription_id = :subscriptionId::int and attempted_at < :cutoff::timestamptz and status <> 'pending'
     order by attempted_at limit :batch::int)
  returning attempted_at
)
select count(*)::int as n, max(attempted_at) as newest from gone`);

export const deleteOldLabelDocuments = query<{ cutoff: Date; batch: number }, Deleted>('retention-label-documents', `
with gone as (
  delete from license_plate_document d using (
    select client_id, order_id, format from license_plate_document where rendered_at < :cutoff::timestamptz limit :batch::int
  ) old where d.client_id = old.client_id and d.order_id = old.order_id and d.format = old.format
  returning d.rendered_at
)
select count(*)::int as n, max(rendered_at) as newest from gone`);

/*
 * A client's confirmed and cancelled sort box items created before :cutoff (along its (client_id,
 * created_at) index), except confirmed ones of an order still in their slot: the slot's decisions count
 * them (cancelled ones count for nothing).
 */
export const deleteOldSortBoxItems = query<{ clientId: number; cutoff: Date; batch: number }, Deleted>('retention-sort-box-items', `
with gone as (
  delete from sort_box_item where id in (
    select i.id from sort_box_item i
     where i.client_id = :clientId::int and i.created_at < :cutoff::timestamptz and i.status <> 'PendingConfirmation'
       and (i.status = 'Cancelled' or not exists (select 1 from sort_box sb where sb.id = i.sort_box_id and sb.order_id = i.order_id))
     limit :batch::int)
  returning created_at
)
select count(*)::int as n, max(created_at) as newest from gone`);

export const deleteOldFailedJobs = query<{ cutoff: Date; batch: number }, Deleted>('retention-failed-jobs', `
with gone as (
  delete from failed_job where id in (select id from failed_job where failed_at < :cutoff::timestamptz limit :batch::int) returning failed_at
)
select count(*)::int as n, max(failed_at) as newest from gone`);

export const deleteOldAppliedCommands = query<{ cutoff: Date; batch: number }, Deleted>('retention-applied-commands', `
with gone as (
  delete from applied_command where command_id in (select command_id from applied_command where applied_at < :cutoff::timestamptz limit :batch::int)
  returning applied_at
)
select count(*)::int as n, max(applied_at) as newest from gone`);

export const deleteOldIdempotencyRecords = query<{ cutoff: Date; batch: number }, Deleted>('retention-idempotency-records', `
with gone as (
  delete from idempotency_record r using (
    select client_id, idempotency_key from idempotency_record where created_at < :cutoff::timestamptz limit :batch::int
  ) old where r.client_id = old.client_id and r.idempotency_key = old.idempotency_key
  returning r.created_at
)
select count(*)::int as n, max(created_at) as newest from gone`);
