import { Migration } from '@mikro-orm/migrations';

/**
 * An audit record is written with what its listings need and nothing else (docs/architecture.md
 * "Audit worker and the audit logs"). Every relayed event writes one record, in the transaction that
 * moves the audit consumer's position: that position, not a unique index, makes each event recorded
 * once (a batch that fails rolls back with its position; a batch taken again after a crash starts
 * where the committed position is).
 *
 * - `audit_log_event_id_uq` is dropped: no listing reads by event id, and its only use was the
 *   insert's `on conflict (event_id)`, a random page of a uuid index read and written per record.
 * - `audit_log_client_id_fkey` is dropped: its check was a lookup and a FOR KEY SHARE lock of the
 *   client's row per record, and nothing deletes clients; a record's client is the event's, which the
 *   command's own write checked.
 */
export class Migration20261127201726_audit_record_writes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
drop index audit_log_event_id_uq;
alter table audit_log drop constraint audit_log_client_id_fkey;
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
alter table audit_log add constraint audit_log_client_id_fkey foreign key (client_id) references client(id) on delete cascade;
create unique index audit_log_event_id_uq on audit_log (event_id);
`);
  }
}
