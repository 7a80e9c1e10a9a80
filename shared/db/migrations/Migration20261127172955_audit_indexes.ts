import { Migration } from '@mikro-orm/migrations';

/**
 * The audit log's indexes, cut to what its listings need (docs/architecture.md "Audit worker and the
 * audit logs"). Every relayed event writes one record, and every index that holds the record is written
 * with it: the kind index and the warehouse index held almost every record.
 *
 * - `(client_id, kind, …)` is replaced by partial indexes of the rare kinds: the session listing
 *   (`/audit-logs/sessions`) and the wall listing (`/audit-logs/walls`) each read one of them in order
 *   (the sort-box listing already has its own). The sort-box-item listing, whose kind is most of the
 *   records, walks the client's time index and skips the few other records, as the listing of every
 *   kind does; a scan, a confirm or a release writes no entry in any of the kind indexes.
 * - `(client_id, warehouse_id, …)` is dropped: a warehouse holds a large share of a client's records
 *   (a client has a few warehouses), so `/audit-logs?warehouseId=` walks the time index and keeps the
 *   records of that warehouse, reading a few records per one it answers.
 *
 * Left: the key and the event id (`on conflict (event_id)`), time (every listing without a selective
 * filter, `/audit-logs/initial-timestamp` and the retention), wall, user, order, crc, barcode (the
 * selective filters), and the partial ones that hold few records (errors, picklists, sort boxes and
 * license plates, sessions, walls).
 */
export class Migration20261127172955_audit_indexes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
drop index audit_log_client_kind_idx;
drop index audit_log_client_warehouse_idx;
-- /audit-logs/sessions
create index audit_log_client_session_idx on audit_log (client_id, occurred_at desc, id desc) where kind = 'session';
-- /audit-logs/walls
create index audit_log_client_wall_kind_idx on audit_log (client_id, occurred_at desc, id desc) where kind = 'wall';
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
drop index audit_log_client_wall_kind_idx;
drop index audit_log_client_session_idx;
create index audit_log_client_warehouse_idx on audit_log (client_id, warehouse_id, occurred_at desc, id desc) where warehouse_id is not null;
create index audit_log_client_kind_idx on audit_log (client_id, kind, occurred_at desc, id desc);
`);
  }
}
