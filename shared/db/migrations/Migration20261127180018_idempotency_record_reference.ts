import { Migration } from '@mikro-orm/migrations';

/**
 * A keyed scan's idempotency record no longer references its client. The key was a lookup and a lock
 * (FOR KEY SHARE) of the client's row with every keyed scan of every wall, shared with the audit
 * consumer's batches (multixacts on one row); it protected nothing: nothing deletes a client, and the
 * records go by age (`retention-idempotency-records`) whoever they belong to.
 */
export class Migration20261127180018_idempotency_record_reference extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table idempotency_record drop constraint idempotency_record_client_id_fkey;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table idempotency_record add constraint idempotency_record_client_id_fkey foreign key (client_id) references client(id) on delete cascade;`);
  }
}
