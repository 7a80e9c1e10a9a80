import { Migration } from '@mikro-orm/migrations';

/** The metrics scrape counts recent failed webhook attempts; a partial index keeps that cheap. */
export class Migration20261123060000_metrics_indexes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create index webhook_delivery_failed_idx on webhook_delivery (attempted_at) where status = 'failed';`);
  }

  override async down(): Promise<void> {
    this.addSql('drop index if exists webhook_delivery_failed_idx;');
  }
}
