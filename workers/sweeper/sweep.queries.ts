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

/** Connected sessions idle past their expiry, oldest first (an expiry written to the minute: session-access.ts). */
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

/** `examined`: rows the statement looked at where it may keep some (the outbox); else as many as it deleted. */
type Deleted = { n: number; newest: Date | null; examined?: number };

/*
 * Each retention statement deletes at most :batch rows older than :cutoff, found along an index that
 * starts with the oldest (per client or subscription where the index leads with it), and answers how
 * many it deleted and the newest instant among them: a statement stays short whatever the backlog.
 */

/**
 * The statement that deletes old rows of `table`: those whose `time` is before :cutoff and that `where`
 * keeps (with :clientId or :subscriptionId when it names them), at most :batch of them, oldest first
 * when `oldestFirst` (the table's index leads with the key `where` fixes, then the time). The rows
 * found are deleted by their place in the table (`ctid`, a TID scan): a join back by key let the
 * generic plan of a prepared statement, which cannot know :batch, hash the batch and read the whole
 * table for it (300 ms a batch on a day of command records, against 4). A row updated meanwhile is
 * left for the next run.
 */
function oldRows<P extends object = object>(name: string, table: string, opts: { time: string; where?: string; oldestFirst?: boolean }) {
  const where = opts.where ? ` and ${opts.where}` : '';
  return query<P & { cutoff: Date; batch: number }, Deleted>(`retention-${name}`, `
with gone as (
  delete from ${table} where ctid = any(array(
    select ctid from ${table} where ${opts.time} < :cutoff::timestamptz${where}${opts.oldestFirst ? ` order by ${opts.time}` : ''} limit :batch::int))
  returning ${opts.time} as at
)
select count(*)::int as n, max(at) as newest from gone`);
}

/*
 * Outbox events every consumer has passed (:consumers, their position at or after the event) and older
 * than :cutoff, with no webhook delivery still pending: taken oldest first along the outbox id, so a
 * statement reads at most :batch events however large the table. It keeps those it may not delete (a
 * delivery still pending) and says how many it looked at: the next statement looks past what this one
 * deleted.
 */
export const deleteOldOutboxEvents = query<{ cutoff: Date; batch: number; consumers: string[] }, Deleted>('retention-outbox', `
with passed as (select coalesce(min(position), 0) as position from outbox_consumer where name = any(:consumers::text[])),
oldest as (
  select o.id, o.event_id, o.occurred_at from outbox_event o
   where o.id <= (select position from passed) order by o.id limit :batch::int
), gone as (
  delete from outbox_event o using oldest d
   where o.id = d.id and d.occurred_at < :cutoff::timestamptz and not exists (select 1 from webhook_pending p where p.event_id = d.event_id)
  returning o.occurred_at
)
select (select count(*)::int from gone) as n, (select max(occurred_at) from gone) as newest, (select count(*)::int from oldest) as examined`);

/* A client's audit records, oldest first along its (client_id, occurred_at) index. */
export const deleteOldAuditRecords = oldRows<{ clientId: number }>('audit', 'audit_log', { time: 'occurred_at', where: 'client_id = :clientId::int', oldestFirst: true });

export const deleteOldCountedEvents = oldRows('counted-events', 'stats_counted_event', { time: 'counted_at' });

/** The subscriptions (the retention of their delivery history goes subscription by subscription, along their index). */
export const subscriptionIds = query<Record<string, never>, { id: number }>('sweep-subscription-ids', 'select id from webhook_subscription order by id');

/* A subscription's finished attempts, oldest first along its (subscription_id, attempted_at) index. */
export const deleteOldWebhookDeliveries = oldRows<{ subscriptionId: number }>('webhook-deliveries', 'webhook_delivery', {
  time: 'attempted_at',
  where: "subscription_id = :subscriptionId::int and status <> 'pending'",
  oldestFirst: true,
});

export const deleteOldLabelDocuments = oldRows('label-documents', 'license_plate_document', { time: 'rendered_at' });

/*
 * A client's confirmed and cancelled sort box items (along its (client_id, created_at) index), except
 * confirmed ones of an order still in their slot: the slot's decisions count them (cancelled ones count
 * for nothing).
 */
export const deleteOldSortBoxItems = oldRows<{ clientId: number }>('sort-box-items', 'sort_box_item', {
  time: 'created_at',
  where: `client_id = :clientId::int and status <> 'PendingConfirmation'
       and (status = 'Cancelled' or not exists (select 1 from sort_box sb where sb.id = sort_box_item.sort_box_id and sb.order_id = sort_box_item.order_id))`,
});

export const deleteOldFailedJobs = oldRows('failed-jobs', 'failed_job', { time: 'failed_at' });

/* A keyed scan's Idempotency-Key is a column of its applied record: the key goes with it. */
export const deleteOldAppliedCommands = oldRows('applied-commands', 'applied_command', { time: 'applied_at' });
