import { Migration } from '@mikro-orm/migrations';

/**
 * The event pipeline (docs/architecture.md "Event pipeline"):
 * - outbox_event wakes the relay: a statement-level trigger sends NOTIFY outbox_event, which PostgreSQL
 *   delivers only when the writing transaction commits (and only once per transaction and channel).
 * - failed_job: every job the queues gave up on, so a final failure outlives Redis.
 * - audit_log: the warehouse of the wall (ListAuditLogs filters by it) and indexes so that each listing
 *   reads one index range newest first (or oldest first after `since`), however large the log.
 */
export class Migration20261123030000_event_pipeline extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create function outbox_event_notify() returns trigger language plpgsql as $$
begin
  perform pg_notify('outbox_event', '');
  return null;
end $$;
create trigger outbox_event_notify after insert on outbox_event for each statement execute function outbox_event_notify();

create table failed_job (
  id bigserial primary key,
  queue text not null,
  job_name text not null,
  job_id text not null,
  data jsonb not null,
  error text not null,
  attempts int not null,
  failed_at timestamptz not null default now()
);
create unique index failed_job_queue_job_uq on failed_job (queue, job_id);
create index failed_job_failed_at_idx on failed_job (failed_at desc);

alter table audit_log add column warehouse_id int null;
drop index audit_log_client_wall_idx;
create index audit_log_client_wall_idx on audit_log (client_id, wall_id, occurred_at desc, id desc);
create index audit_log_client_kind_idx on audit_log (client_id, kind, occurred_at desc, id desc);
create index audit_log_client_user_idx on audit_log (client_id, user_id, occurred_at desc, id desc) where user_id is not null;
create index audit_log_client_order_idx on audit_log (client_id, order_id, occurred_at desc, id desc) where order_id is not null;
create index audit_log_client_picklist_idx on audit_log (client_id, picklist_id, occurred_at desc, id desc) where picklist_id is not null;
create index audit_log_client_crc_idx on audit_log (client_id, crc, occurred_at desc, id desc) where crc is not null;
create index audit_log_client_barcode_idx on audit_log (client_id, barcode, occurred_at desc, id desc) where barcode is not null;
create index audit_log_client_warehouse_idx on audit_log (client_id, warehouse_id, occurred_at desc, id desc) where warehouse_id is not null;
create index audit_log_client_error_idx on audit_log (client_id, occurred_at desc, id desc) where is_error;
-- ListSortBoxAuditLogs shows two kinds in one order.
create index audit_log_client_sort_box_idx on audit_log (client_id, occurred_at desc, id desc) where kind in ('sort-box', 'license-plate');
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
drop index audit_log_client_kind_idx, audit_log_client_user_idx, audit_log_client_order_idx, audit_log_client_picklist_idx,
  audit_log_client_crc_idx, audit_log_client_barcode_idx, audit_log_client_warehouse_idx, audit_log_client_error_idx, audit_log_client_sort_box_idx;
drop index audit_log_client_wall_idx;
create index audit_log_client_wall_idx on audit_log (client_id, wall_id, occurred_at desc);
alter table audit_log drop column warehouse_id;
drop table failed_job;
drop trigger outbox_event_notify on outbox_event;
drop function outbox_event_notify();
`);
  }
}
